// The probe stage's shared state (docs/validation.md, docs/bulk.md): verdict shards, MX session leases
// and RCPT schedules. Keys: the probe block of ../keys.ts.
//
// A verdict shard's entries are attributes named after the address (`@<local part>` = {p, e}): the
// library declares fixed attribute names, so it cannot express them. The entity declares what is fixed
// (key, entry count `n`, ttl) and store/probe-verdicts.ts reads and writes the entries by hand, behind
// it: that path runs for every probed address and the library would cost more than the write itself.
import { Entity, item, number, string } from 'dynamodb-toolbox';
import { declared } from './declare';
import { mailvetTable } from './table';

const keys = { pk: string().key(), sk: string().key() };

/** PROBE#<domain>#<shard> / VERDICTS (entries handled by store/probe-verdicts.ts). */
const probeVerdictShard = new Entity({
  name: 'probeVerdictShard',
  table: mailvetTable,
  entityAttribute: false,
  timestamps: false,
  schema: item({ ...keys, n: number(), ttl: number() }),
});
export const probeVerdictShardEntity = declared(probeVerdictShard);

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
const mxSessionLease = new Entity({
  name: 'mxSessionLease',
  table: mailvetTable,
  entityAttribute: false,
  timestamps: false,
  schema: item({ ...keys, owner: string(), holdUntil: number(), ttl: number() }),
});
export const mxSessionLeaseEntity = declared(mxSessionLease);

/** MXHOST#<host> / RCPTPACE: the host's next free RCPT slot (ms). */
const mxRcptSchedule = new Entity({
  name: 'mxRcptSchedule',
  table: mailvetTable,
  entityAttribute: false,
  timestamps: false,
  schema: item({ ...keys, next: number(), ttl: number() }),
});
export const mxRcptScheduleEntity = declared(mxRcptSchedule);
