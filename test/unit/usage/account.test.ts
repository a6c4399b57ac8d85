import { monthBounds, monthState, usageMonth } from '../../../functions/domain/usage/account';
import type { MonthUsage, UsageRecords } from '../../../functions/store/usage';

const month = (m: string, committed: number, extra: Partial<MonthUsage> = {}): [string, MonthUsage] => [
  m,
  { month: m, validations: committed, single: committed, bulk: 0, reserved: 0, committed, ...extra },
];

const records = (
  creditsAdded: number,
  months: [string, MonthUsage][],
  monthlyQuota?: number,
): UsageRecords => ({
  plan: { creditsAdded, ...(monthlyQuota === undefined ? {} : { monthlyQuota }) },
  months: new Map(months),
});

describe('usage months', () => {
  it('names the UTC month and its bounds, December rolling into January', () => {
    expect(usageMonth(new Date('2026-11-30T23:59:59.999Z'))).toBe('2026-11');
    expect(usageMonth(new Date('2026-12-01T00:00:00.000Z'))).toBe('2026-12');
    const { start, end } = monthBounds('2026-12');
    expect(start.toISOString()).toBe('2026-12-01T00:00:00.000Z');
    expect(end.toISOString()).toBe('2027-01-01T00:00:00.000Z');
  });
});

describe('monthState', () => {
  it('uses the default quota when the company has none, and the plan quota when it has one', () => {
    expect(monthState(records(0, []), '2026-11', '2026-11', 1000)).toMatchObject({
      quota: 1000,
      remaining: 1000,
      creditsRemaining: 0,
      limit: 1000,
    });
    expect(monthState(records(0, [], 50), '2026-11', '2026-11', 1000).quota).toBe(50);
  });

  it('spends the quota first, then credits; reservations count as used', () => {
    const within = monthState(
      records(30, [month('2026-11', 60, { reserved: 10 })], 100),
      '2026-11',
      '2026-11',
      0,
    );
    expect(within).toMatchObject({ quota: 100, creditsRemaining: 30, remaining: 70, limit: 130 });
    const beyond = monthState(records(30, [month('2026-11', 110)], 100), '2026-11', '2026-11', 0);
    expect(beyond).toMatchObject({ creditsRemaining: 20, remaining: 20, limit: 130 });
    const exhausted = monthState(records(30, [month('2026-11', 130)], 100), '2026-11', '2026-11', 0);
    expect(exhausted.remaining).toBe(0);
  });

  it('carries credits across months, each month measured against its frozen quota', () => {
    const r = records(
      50,
      [month('2026-09', 120, { quota: 100 }), month('2026-10', 90, { quota: 80 }), month('2026-11', 5)],
      200,
    );
    // September used 20 credits, October 10: 20 left; November has its own 200.
    const november = monthState(r, '2026-11', '2026-11', 0);
    expect(november).toMatchObject({ quota: 200, creditsRemaining: 20, remaining: 215, limit: 220 });
    // A past month has no quota left to use: only the credits remain.
    expect(monthState(r, '2026-10', '2026-11', 0)).toMatchObject({ quota: 80, remaining: 20 });
    // A month with nothing counted yet reports zeros.
    expect(monthState(r, '2026-12', '2026-11', 0).usage.validations).toBe(0);
  });

  it('never reports negative credits when in-flight validations ran past the limit', () => {
    const r = records(0, [month('2026-10', 103, { quota: 100 }), month('2026-11', 0)], 100);
    expect(monthState(r, '2026-11', '2026-11', 0)).toMatchObject({ creditsRemaining: 0, remaining: 100 });
  });
});
