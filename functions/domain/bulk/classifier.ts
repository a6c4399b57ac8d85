// The validation engine as bulk processing sees it: one engine per process (its domain cache shared by
// every chunk the container handles), prepared once per chunk so each unique domain of the chunk is
// resolved at most once, then a synchronous status per row.
import { settings } from '../../settings';
import { ValidationEngine, engineOptionsFromSettings } from '../validation';
import { gatedKnownLists } from './known-lists-gate';
import type { BulkStatus } from './statuses';

/** A row's status and the engine's reason for it (kept in the results' row index). */
export interface ChunkVerdict {
  status: BulkStatus;
  reason: string;
}

/** Classifies the email cells of one chunk, in order. */
export type ClassifyChunk = (emails: readonly string[], companyId: string) => Promise<ChunkVerdict[]>;

let engine: ValidationEngine | undefined;

function sharedEngine(): ValidationEngine {
  engine ??= new ValidationEngine(engineOptionsFromSettings(settings(), { knownLists: gatedKnownLists }));
  return engine;
}

export const classifyChunk: ClassifyChunk = async (emails, companyId) => {
  const batch = await sharedEngine().prepare(emails, { companyId });
  return emails.map((_, index) => {
    const verdict = batch.verdictAt(index);
    return { status: verdict.status, reason: verdict.reason };
  });
};
