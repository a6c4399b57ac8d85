// UTC calendar days as `YYYY-MM-DD` strings, and the reputation windows of docs/api.md built from them.
// Every function takes the clock's `now` so window edges can be tested with a fixed time.

export { systemClock, type Clock } from '../../clock';

const dayMs = 86_400_000;
const datePattern = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The UTC date of an instant. */
export function utcDate(instant: Date): string {
  return instant.toISOString().slice(0, 10);
}

/** True for a real calendar date in `YYYY-MM-DD` form (2026-02-30 is not). */
export function isDate(value: string): boolean {
  const match = datePattern.exec(value);
  if (!match) return false;
  const parsed = new Date(`${value}T00:00:00.000Z`);
  return !Number.isNaN(parsed.getTime()) && utcDate(parsed) === value;
}

export function addDays(date: string, days: number): string {
  return utcDate(new Date(Date.parse(`${date}T00:00:00.000Z`) + days * dayMs));
}

/** Days from `from` to `to` (0 when equal, negative when `to` is earlier). */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00.000Z`) - Date.parse(`${from}T00:00:00.000Z`)) / dayMs);
}

export function yearOf(date: string): number {
  return Number(date.slice(0, 4));
}

/** 0-based day within its year (Jan 1 is 0). */
export function dayOfYear(date: string): number {
  return daysBetween(`${date.slice(0, 4)}-01-01`, date);
}

/** Every date from `start` to `end` inclusive. */
export function datesBetween(start: string, end: string): string[] {
  const out: string[] = [];
  for (let d = start; d <= end; d = addDays(d, 1)) out.push(d);
  return out;
}

export const reputationRangeNames = [
  'today',
  'yesterday',
  'last7Days',
  'thisWeek',
  'last30Days',
  'lastWeek',
  'lastMonth',
  'thisMonth',
] as const;
export type ReputationRangeName = (typeof reputationRangeNames)[number];

export interface DateWindow {
  startDate: string;
  endDate: string;
}

export interface ReputationRange extends DateWindow {
  name: ReputationRangeName;
}

/** Monday of the week holding `date` (ISO weeks: Monday first). */
function mondayOf(date: string): string {
  const weekday = new Date(`${date}T00:00:00.000Z`).getUTCDay(); // 0 = Sunday
  return addDays(date, -((weekday + 6) % 7));
}

/**
 * The window of a reputationRange name in UTC days. "this" windows run to today (later days cannot
 * have data yet); "last" week and month are the whole previous calendar week (Mon-Sun) and month.
 */
export function resolveReputationRange(name: ReputationRangeName, now: Date): ReputationRange {
  const today = utcDate(now);
  const window = ((): DateWindow => {
    switch (name) {
      case 'today':
        return { startDate: today, endDate: today };
      case 'yesterday':
        return { startDate: addDays(today, -1), endDate: addDays(today, -1) };
      case 'last7Days':
        return { startDate: addDays(today, -6), endDate: today };
      case 'last30Days':
        return { startDate: addDays(today, -29), endDate: today };
      case 'thisWeek':
        return { startDate: mondayOf(today), endDate: today };
      case 'lastWeek': {
        const monday = addDays(mondayOf(today), -7);
        return { startDate: monday, endDate: addDays(monday, 6) };
      }
      case 'thisMonth':
        return { startDate: `${today.slice(0, 7)}-01`, endDate: today };
      case 'lastMonth': {
        const firstOfThisMonth = `${today.slice(0, 7)}-01`;
        const endDate = addDays(firstOfThisMonth, -1);
        return { startDate: `${endDate.slice(0, 7)}-01`, endDate };
      }
    }
  })();
  return { name, ...window };
}
