// The quota of POST /v1/email/validate without a read per request (docs/usage.md "Enforcement").
//
// A process remembers each company's plan and months for USAGE_CACHE_SECONDS. The check before any work
// judges from them; the write that stores a completed result and counts it carries the quota as its
// condition, on the month's live count, so no staleness lets a validation past the limit. A refusal is
// always read again first, and a lowered quota (`npm run admin`) applies within USAGE_CACHE_SECONDS.
// Once the remembered read has expired, the check still judges from it and a new read starts at once,
// running beside the engine; the write waits for it. So after a company's first request in a process,
// the plan's read never adds a round trip in series.
import type { Clock } from '../../clock';
import { QuotaExceededError } from '../../errors';
import { settings } from '../../settings';
import { readUsageRecords, type UsageRecords } from '../../store/usage';
import { monthState, usageMonth } from './account';

interface Remembered {
  records: UsageRecords;
  until: number;
  /** The read that replaces an expired entry, started by a check and awaited by the write. */
  refresh?: Promise<UsageRecords>;
}

/** Companies remembered at once per process; beyond it the memory starts over. */
const REMEMBERED_LIMIT = 10_000;
const remembered = new Map<string, Remembered>();

/** Reads the company's records and remembers them from `at` on. */
async function read(companyId: string, at: Date): Promise<UsageRecords> {
  const records = await readUsageRecords(companyId);
  if (remembered.size >= REMEMBERED_LIMIT) remembered.clear();
  remembered.set(companyId, { records, until: at.getTime() + settings().USAGE_CACHE_SECONDS * 1000 });
  return records;
}

/** The remembered records to judge by, starting their refresh when expired; a read when there are none. */
async function recentRecords(companyId: string, at: Date): Promise<{ records: UsageRecords; read: boolean }> {
  const entry = settings().USAGE_CACHE_SECONDS > 0 ? remembered.get(companyId) : undefined;
  if (!entry) return { records: await read(companyId, at), read: true };
  if (entry.until <= at.getTime() && !entry.refresh) {
    const refresh = read(companyId, at);
    entry.refresh = refresh;
    // A failed refresh is forgotten (the write reads again itself); never an unhandled rejection.
    refresh.catch(() => {
      if (entry.refresh === refresh) entry.refresh = undefined;
    });
  }
  return { records: entry.records, read: false };
}

/** The records for the write: a refresh in flight when there is one, else the remembered ones. */
async function recordsForWrite(
  companyId: string,
  at: Date,
): Promise<{ records: UsageRecords; read: boolean }> {
  const refresh = remembered.get(companyId)?.refresh;
  if (refresh) {
    const records = await refresh.catch(() => read(companyId, at));
    return { records, read: true };
  }
  return recentRecords(companyId, at);
}

/** The month's state at `at`, from `records`. */
const stateAt = (records: UsageRecords, at: Date) =>
  monthState(records, usageMonth(at), usageMonth(at), settings().DEFAULT_MONTHLY_QUOTA);

/**
 * Before any work: 402 when quota plus credits cannot cover `count` addresses, judged from the
 * process's remembered read of the plan (a refusal only after a fresh read agrees).
 */
export async function assertSingleValidationsLeft(companyId: string, clock: Clock, count = 1): Promise<void> {
  if (count <= 0) return;
  const at = clock();
  const recent = await recentRecords(companyId, at);
  if (stateAt(recent.records, at).remaining >= count) return;
  const records = recent.read ? recent.records : await read(companyId, at);
  if (stateAt(records, at).remaining < count) throw new QuotaExceededError();
}

/**
 * Stores and counts one validation through `write`, which counts it in `month` only while the month's
 * `committed` is at most `maxCommittedBefore`, and answers false (nothing written) otherwise. Exact under
 * any concurrency: the store's condition decides on the live count. A limit from a remembered read is
 * read again once before the 402.
 */
export async function countWithinQuota(
  companyId: string,
  at: Date,
  write: (month: string, maxCommittedBefore: number) => Promise<boolean>,
): Promise<void> {
  let recent = await recordsForWrite(companyId, at);
  for (;;) {
    const state = stateAt(recent.records, at);
    // no room even for an empty month: the condition would let an absent month item through
    if (state.limit >= 1 && (await write(state.month, state.limit - 1))) return;
    if (recent.read) throw new QuotaExceededError();
    recent = { records: await read(companyId, at), read: true };
  }
}
