// The arithmetic of a plan, as plain functions of the stored records (no I/O, unit-tested).
//
// Each calendar month (UTC) has its quota; validations beyond it draw on the prepaid credits, which
// do not expire. Credits left = credits ever added - every month's use beyond its quota (never below 0).
// Use is `committed`: counted validations plus rows that running bulk jobs have reserved.
import type { MonthUsage, UsageRecords } from '../../store/usage';

/** `YYYY-MM` of an instant, in UTC. */
export function usageMonth(now: Date): string {
  return now.toISOString().slice(0, 7);
}

/** The first instant of a `YYYY-MM` month and of the month after it (UTC). */
export function monthBounds(month: string): { start: Date; end: Date } {
  const [year, monthNumber] = month.split('-').map(Number) as [number, number];
  return {
    start: new Date(Date.UTC(year, monthNumber - 1, 1)),
    end: new Date(Date.UTC(year, monthNumber, 1)),
  };
}

const emptyMonth = (month: string): MonthUsage => ({
  month,
  validations: 0,
  single: 0,
  bulk: 0,
  reserved: 0,
  committed: 0,
});

export interface MonthState {
  month: string;
  usage: MonthUsage;
  quota: number;
  /** Credits left now, after every month's use (reservations included). */
  creditsRemaining: number;
  /** What this month may still use: its quota left plus credits (0 quota left once the month is over). */
  remaining: number;
  /** The most `committed` may reach this month: its quota plus the credits earlier months left. */
  limit: number;
}

/** The plan's state for `month`, seen at `currentMonth`. */
export function monthState(
  records: UsageRecords,
  month: string,
  currentMonth: string,
  defaultQuota: number,
): MonthState {
  const quotaOf = (m: string) => records.months.get(m)?.quota ?? records.plan.monthlyQuota ?? defaultQuota;
  const overage = (m: MonthUsage) => Math.max(0, m.committed - quotaOf(m.month));
  let usedBefore = 0;
  let usedAll = 0;
  for (const m of records.months.values()) {
    usedAll += overage(m);
    if (m.month < month) usedBefore += overage(m);
  }
  const usage = records.months.get(month) ?? emptyMonth(month);
  const quota = quotaOf(month);
  const creditsRemaining = Math.max(0, records.plan.creditsAdded - usedAll);
  const quotaLeft = month < currentMonth ? 0 : Math.max(0, quota - usage.committed);
  return {
    month,
    usage,
    quota,
    creditsRemaining,
    remaining: quotaLeft + creditsRemaining,
    limit: quota + Math.max(0, records.plan.creditsAdded - usedBefore),
  };
}
