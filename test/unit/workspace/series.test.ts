// The packed yearly series: slots round-trip, windows average exactly the days inside them.
import fc from 'fast-check';
import {
  addDays,
  datesBetween,
  dayOfYear,
  isDate,
  resolveReputationRange,
  yearOf,
} from '../../../functions/domain/workspace/dates';
import {
  emptyYear,
  history,
  latestValue,
  windowMean,
  writeSlots,
  type YearBlocks,
} from '../../../functions/domain/workspace/series';

const day = fc.integer({ min: 0, max: 3 * 365 }).map((n) => addDays('2024-01-01', n));

function blocksFrom(values: Map<string, number>): YearBlocks {
  const blocks: YearBlocks = new Map();
  for (const [date, value] of values) {
    blocks.set(yearOf(date), writeSlots(blocks.get(yearOf(date)) ?? emptyYear, [[dayOfYear(date), value]]));
  }
  return blocks;
}

describe('series', () => {
  it('averages exactly the days with a value inside any window (rounded half up)', () => {
    fc.assert(
      fc.property(
        fc.dictionary(day, fc.integer({ min: 0, max: 100 }), { maxKeys: 60 }),
        day,
        day,
        (dict, a, b) => {
          const [start, end] = a <= b ? [a, b] : [b, a];
          const values = new Map(Object.entries(dict));
          const inside = [...values].filter(([d]) => d >= start && d <= end).map(([, v]) => v);
          const expected = inside.length
            ? Math.round(inside.reduce((s, v) => s + v, 0) / inside.length)
            : null;
          expect(windowMean(blocksFrom(values), start, end)).toBe(expected);
        },
      ),
    );
  });

  it('gives one point per day, ascending, null where no value', () => {
    const blocks = blocksFrom(
      new Map([
        ['2024-12-31', 100],
        ['2025-01-01', 0],
      ]),
    );
    expect(history(blocks, '2024-12-30', '2025-01-02')).toEqual([
      { date: '2024-12-30', reputation: null },
      { date: '2024-12-31', reputation: 100 },
      { date: '2025-01-01', reputation: 0 },
      { date: '2025-01-02', reputation: null },
    ]);
    expect(latestValue(blocks)).toEqual({ date: '2025-01-01', value: 0 });
    expect(latestValue(new Map())).toBeNull();
  });

  it('clears a day with null', () => {
    const days = writeSlots(writeSlots(emptyYear, [[10, 42]]), [[10, null]]);
    expect(days).toBe(emptyYear);
  });
});

describe('dates', () => {
  it('accepts only real calendar dates', () => {
    expect(['2024-02-29', '2026-12-31'].every(isDate)).toBe(true);
    expect(['2026-02-29', '2026-13-01', '2026-1-01', '2026-01-01T00:00:00Z', ''].some(isDate)).toBe(false);
  });

  it('always resolves windows that end today at the latest, start on a Monday for weeks, and on the 1st for months', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }),
        (now) => {
          const today = now.toISOString().slice(0, 10);
          const weekday = (d: string) => new Date(`${d}T00:00:00Z`).getUTCDay();
          const thisWeek = resolveReputationRange('thisWeek', now);
          const lastWeek = resolveReputationRange('lastWeek', now);
          expect(weekday(thisWeek.startDate)).toBe(1);
          expect(thisWeek.endDate).toBe(today);
          expect(datesBetween(thisWeek.startDate, today).length).toBeLessThanOrEqual(7);
          expect([weekday(lastWeek.startDate), weekday(lastWeek.endDate)]).toEqual([1, 0]);
          expect(addDays(lastWeek.endDate, 1)).toBe(thisWeek.startDate);
          const lastMonth = resolveReputationRange('lastMonth', now);
          expect(lastMonth.startDate.slice(8)).toBe('01');
          expect(addDays(lastMonth.endDate, 1)).toBe(resolveReputationRange('thisMonth', now).startDate);
          expect(datesBetween(resolveReputationRange('last30Days', now).startDate, today)).toHaveLength(30);
          expect(datesBetween(resolveReputationRange('last7Days', now).startDate, today)).toHaveLength(7);
        },
      ),
    );
  });
});
