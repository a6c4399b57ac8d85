// Daily reputation series stored compactly: one item per mailbox (or domain) per calendar year whose
// `days` string packs 366 two-character slots (hex 00-64, `--` for no value). Reading any window of a
// list page costs one or two small items per mailbox, however long the history grows.
import { dayOfYear, daysBetween, utcDate, yearOf } from './dates';

export const slotsPerYear = 366;
const empty = '--';
export const emptyYear = empty.repeat(slotsPerYear);

/** Values by date (`YYYY-MM-DD` → 0-100). Dates absent have no value. */
export type DailyValues = Map<string, number>;

function encodeSlot(value: number | null | undefined): string {
  return value === null || value === undefined ? empty : value.toString(16).padStart(2, '0');
}

export function readSlot(days: string, index: number): number | null {
  const slot = days.slice(index * 2, index * 2 + 2);
  if (slot.length < 2 || slot === empty) return null;
  return parseInt(slot, 16);
}

/** Writes values into a year's packed string (null clears a day). */
export function writeSlots(days: string, updates: Iterable<[number, number | null]>): string {
  const slots = (days.length === slotsPerYear * 2 ? days : emptyYear).split('');
  for (const [index, value] of updates) {
    const encoded = encodeSlot(value);
    slots[index * 2] = encoded[0]!;
    slots[index * 2 + 1] = encoded[1]!;
  }
  return slots.join('');
}

/** The years a window touches, first to last. */
export function yearsOf(startDate: string, endDate: string): number[] {
  const out: number[] = [];
  for (let y = yearOf(startDate); y <= yearOf(endDate); y++) out.push(y);
  return out;
}

/** Year blocks of one series, keyed by year. */
export type YearBlocks = Map<number, string>;

/** The value of one day, or null. */
function valueOn(blocks: YearBlocks, date: string): number | null {
  const days = blocks.get(yearOf(date));
  return days === undefined ? null : readSlot(days, dayOfYear(date));
}

/** One point per day of the window, ascending, null where there is no value. */
export function history(
  blocks: YearBlocks,
  startDate: string,
  endDate: string,
): { date: string; reputation: number | null }[] {
  const points: { date: string; reputation: number | null }[] = [];
  const start = Date.parse(`${startDate}T00:00:00.000Z`);
  const count = daysBetween(startDate, endDate) + 1;
  for (let i = 0; i < count; i++) {
    const date = utcDate(new Date(start + i * 86_400_000));
    points.push({ date, reputation: valueOn(blocks, date) });
  }
  return points;
}

/** Rounded mean of the days with a value in the window; null when none has one. */
export function windowMean(blocks: YearBlocks, startDate: string, endDate: string): number | null {
  let sum = 0;
  let count = 0;
  for (const year of yearsOf(startDate, endDate)) {
    const days = blocks.get(year);
    if (days === undefined) continue;
    const from = year === yearOf(startDate) ? dayOfYear(startDate) : 0;
    const to = year === yearOf(endDate) ? dayOfYear(endDate) : slotsPerYear - 1;
    for (let i = from; i <= to; i++) {
      const value = readSlot(days, i);
      if (value !== null) {
        sum += value;
        count++;
      }
    }
  }
  return count === 0 ? null : roundMean(sum, count);
}

/** Half-up rounding of a mean of integers (Math.round), the one rounding rule of the workspace. */
export function roundMean(sum: number, count: number): number {
  return Math.round(sum / count);
}

/** The latest day with a value, scanning years from the newest. */
export function latestValue(blocks: YearBlocks): { date: string; value: number } | null {
  const years = [...blocks.keys()].sort((a, b) => b - a);
  for (const year of years) {
    const days = blocks.get(year)!;
    for (let i = slotsPerYear - 1; i >= 0; i--) {
      const value = readSlot(days, i);
      if (value !== null) return { date: utcDate(new Date(Date.UTC(year, 0, 1) + i * 86_400_000)), value };
    }
  }
  return null;
}

/** One year of a rollup: each day the rounded mean of the members' values that day (none: no value). */
export function rollUpYear(memberDays: readonly string[]): string {
  const updates: [number, number | null][] = [];
  for (let i = 0; i < slotsPerYear; i++) {
    let sum = 0;
    let count = 0;
    for (const days of memberDays) {
      const value = readSlot(days, i);
      if (value !== null) {
        sum += value;
        count++;
      }
    }
    updates.push([i, count > 0 ? roundMean(sum, count) : null]);
  }
  return writeSlots(emptyYear, updates);
}
