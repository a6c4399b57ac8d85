// The validation engine as bulk processing sees it: one engine per process (its domain cache shared by
// every chunk the container handles), prepared once per chunk so each unique domain of the chunk is
// resolved at most once, then a synchronous status per row. With SMTP_PROBE on, the rows a mailbox
// probe could still change are listed with their MX host for the probe stage; given the probe
// verdicts, the same rows are classified as the single endpoint would.
import { settings } from '../../settings';
import { ValidationEngine, engineOptionsFromSettings } from '../validation';
import type { MailboxProbe, Verdict } from '../validation/types';
import { gatedKnownLists } from './known-lists-gate';
import type { BulkStatus } from './statuses';

/** A row's status and the engine's reason for it (kept in the results' row index). */
export interface ChunkVerdict {
  status: BulkStatus;
  reason: string;
}

/** One address for the probe stage: normalised, with the host (and its IPs) to ask. */
export interface ProbeTarget {
  email: string;
  host: string;
  addresses: string[];
}

export interface ChunkClassification {
  /** A verdict per email cell, in order (final when `probes` is empty). */
  verdicts: ChunkVerdict[];
  /** Rows still to probe (never when probe verdicts were given, nor with SMTP_PROBE off). */
  probes: ProbeTarget[];
}

/**
 * Classifies the email cells of one chunk, in order. `probed` (normalised address -> probe outcome)
 * are the probe stage's results: given them, every row is final.
 */
export type ClassifyChunk = (
  emails: readonly string[],
  companyId: string,
  probed?: ReadonlyMap<string, MailboxProbe>,
  /** Epoch ms: domains not resolved by then read some_risk / dns_timeout (ValidateContext.deadlineMs). */
  deadlineMs?: number,
  /** The chunk's DNS retry round: domains whose cached verdict is a timeout are asked afresh. */
  retryTimeouts?: boolean,
) => Promise<ChunkClassification>;

let engine: ValidationEngine | undefined;

function sharedEngine(): ValidationEngine {
  engine ??= new ValidationEngine(engineOptionsFromSettings(settings(), { knownLists: gatedKnownLists }));
  return engine;
}

/** classifyChunk over a given engine (tests build their own). */
export function chunkClassifier(engineOf: () => ValidationEngine): ClassifyChunk {
  return async (emails, companyId, probed, deadlineMs, retryTimeouts) => {
    const batch = await engineOf().prepare(emails, {
      companyId,
      deadlineMs,
      ...(retryTimeouts ? { retryTimeouts } : {}),
    });
    const probes: ProbeTarget[] = [];
    // the engine's verdicts are shared frozen objects: a row costs no allocation; the array is made at
    // its size (pushing 80,000 rows costs three times as much, and the copies left behind are GC work)
    const verdicts = new Array<ChunkVerdict>(emails.length);
    if (!batch.probes) {
      // SMTP_PROBE off: no row can need a probe
      for (let index = 0; index < emails.length; index++) verdicts[index] = batch.verdictAt(index);
      return { verdicts, probes };
    }
    for (let index = 0; index < emails.length; index++) {
      const email = emails[index]!;
      const need = batch.probeNeed(email);
      let verdict: Verdict;
      if (need === null) verdict = batch.verdictAt(index);
      else if (need.kind === 'unverifiable') verdict = batch.classifyProbed(email, 'unverifiable');
      else if (probed) verdict = batch.classifyProbed(email, probed.get(need.email.toLowerCase()));
      else {
        probes.push(need);
        verdict = batch.verdictAt(index);
      }
      verdicts[index] = verdict;
    }
    return { verdicts, probes };
  };
}

export const classifyChunk: ClassifyChunk = chunkClassifier(sharedEngine);
