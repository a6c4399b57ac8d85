// The validation engine as bulk processing sees it: one engine per process (its domain cache shared by
// every chunk the container handles), prepared once per chunk so each unique domain of the chunk is
// resolved at most once, then a synchronous status per row. With SMTP_PROBE on, the rows a mailbox
// probe could still change are listed with their MX host for the probe stage; given the probe
// verdicts, the same rows are classified as the single endpoint would.
import { settings } from '../../settings';
import { ValidationEngine, engineOptionsFromSettings } from '../validation';
import type { MailboxProbe } from '../validation/types';
import { gatedKnownLists } from './known-lists-gate';
import type { BulkStatus } from './statuses';

/** One address for the probe stage: normalised, with the host (and its IPs) to ask. */
export interface ProbeTarget {
  email: string;
  host: string;
  addresses: string[];
}

export interface ChunkClassification {
  /** A status per email cell, in order (final when `probes` is empty). */
  statuses: BulkStatus[];
  /** Rows still to probe (never when verdicts were given, nor with SMTP_PROBE off). */
  probes: ProbeTarget[];
}

/**
 * Classifies the email cells of one chunk, in order. `verdicts` (normalised address -> probe outcome)
 * are the probe stage's results: given them, every row is final.
 */
export type ClassifyChunk = (
  emails: readonly string[],
  companyId: string,
  verdicts?: ReadonlyMap<string, MailboxProbe>,
) => Promise<ChunkClassification>;

let engine: ValidationEngine | undefined;

function sharedEngine(): ValidationEngine {
  engine ??= new ValidationEngine(engineOptionsFromSettings(settings(), { knownLists: gatedKnownLists }));
  return engine;
}

/** classifyChunk over a given engine (tests build their own). */
export function chunkClassifier(engineOf: () => ValidationEngine): ClassifyChunk {
  return async (emails, companyId, verdicts) => {
    const batch = await engineOf().prepare(emails, { companyId });
    const probes: ProbeTarget[] = [];
    const statuses = emails.map((email): BulkStatus => {
      const need = batch.probeNeed(email);
      if (need === null) return batch.statusOf(email);
      if (need.kind === 'unverifiable') return batch.classifyProbed(email, 'unverifiable').status;
      if (verdicts) return batch.classifyProbed(email, verdicts.get(need.email.toLowerCase())).status;
      probes.push(need);
      return batch.statusOf(email);
    });
    return { statuses, probes };
  };
}

export const classifyChunk: ClassifyChunk = chunkClassifier(sharedEngine);

/** Forget the engine (tests that change DNS settings between runtimes). */
export function resetClassifier(): void {
  engine = undefined;
}
