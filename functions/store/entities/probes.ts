// The probe stage's shared state (docs/validation.md, docs/bulk.md): verdict shards, MX session leases
// and RCPT schedules. Keys: the probe block of ../keys.ts.
//
// A verdict shard's entries are attributes named after the address (`@<local part>` = {p, e}): the
// library declares fixed attribute names, so it cannot express them. The entity declares what is fixed
// (key, entry count `n`, ttl) and store/probe-verdicts.ts reads and writes the entries by hand, behind
// it: that path runs for every probed address and the library would cost more than the write itself.
import { number, string } from 'dynamodb-toolbox';
import { storedEntity } from './declare';

/** PROBE#<domain>#<shard> / VERDICTS (entries handled by store/probe-verdicts.ts). */
export const probeVerdictShardEntity = storedEntity('probeVerdictShard', { n: number(), ttl: number() });

/** The entry attribute of a local part in its shard: a prefix keeps it apart from `n` and `ttl`. */
export const verdictEntryAttribute = (local: string): string => `@${local}`;

/** One stored verdict: the probe outcome and when it expires (epoch seconds). */
export interface VerdictEntry {
  p: string;
  e: number;
}

/** An entry read back, or undefined when the attribute is not an entry's shape. */
export function parseVerdictEntry(value: unknown): VerdictEntry | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { p, e } = value as Record<string, unknown>;
  return typeof p === 'string' && typeof e === 'number' ? { p, e } : undefined;
}

/** MXHOST#<host> / SESSION#<n>: one of N session slots at a host. */
export const mxSessionLeaseEntity = storedEntity('mxSessionLease', {
  owner: string(),
  holdUntil: number(),
  ttl: number(),
});

/** MXHOST#<host> / RCPTPACE: the host's next free RCPT slot (ms). */
export const mxRcptScheduleEntity = storedEntity('mxRcptSchedule', { next: number(), ttl: number() });

/**
 * MXHOST#<host> / LIMITS: what the host showed it takes, learnt from its refusals (sessions at once, RCPT
 * per session), kept until `ttl` (the table's TTL) so every invocation starts from it.
 */
export const mxHostLimitsEntity = storedEntity('mxHostLimits', {
  sessions: number().optional(),
  rcptPerSession: number().optional(),
  ttl: number(),
});
