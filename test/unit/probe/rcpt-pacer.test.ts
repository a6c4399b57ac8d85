// rcptPacer spends booked RCPT slots: whatever the sessions ask for, no second at a host ever sees more
// than M RCPT, and the batch books few runs (one write each) rather than one per pipeline window.
import { MemoryPoliteness, rcptPacer } from '../../../functions/domain/probe/politeness';
import type { Politeness } from '../../../functions/store/mx-politeness';

describe('rcptPacer', () => {
  it('keeps two sessions of one host under M RCPT in every second, booking a run per horizon', async () => {
    const memory = new MemoryPoliteness({ maxSessionsPerHost: 2, rcptPerSecondPerHost: 40, leaseMs: 60_000 });
    let bookings = 0;
    const politeness: Politeness = {
      acquireSession: (host) => memory.acquireSession(host),
      releaseSession: (lease) => memory.releaseSession(lease),
      bookRcpt: (host, wanted) => {
        bookings++;
        return memory.bookRcpt(host, wanted);
      },
    };
    const sent: number[] = [];
    const session = async (recipients: number) => {
      const allowance = rcptPacer(politeness, 'mx.pace.test', recipients, () => false);
      for (let left = recipients; left > 0;) {
        const n = await allowance(Math.min(10, left));
        for (let i = 0; i < n; i++) sent.push(Date.now());
        left -= n;
      }
    };
    await Promise.all([session(60), session(60)]);
    expect(sent.length).toBe(120);
    sent.sort((a, b) => a - b);
    // no calendar second holds more than M = 40 sends
    const perSecond = new Map<number, number>();
    for (const t of sent) perSecond.set(Math.floor(t / 1000), (perSecond.get(Math.floor(t / 1000)) ?? 0) + 1);
    expect(Math.max(...perSecond.values())).toBeLessThanOrEqual(40);
    // 120 RCPT at 40/s is 3 s: within one 5 s horizon, so a handful of bookings, not one per window
    expect(bookings).toBeLessThan(12);
  });

  it('gives up the slots of seconds already over instead of sending them late', async () => {
    // the first booking comes back when all its slots' seconds are over, the second one on time
    const runs = [
      { startMs: Date.now() - 3000, count: 40, intervalMs: 25 },
      { startMs: Date.now(), count: 40, intervalMs: 25 },
    ];
    let bookings = 0;
    const politeness: Politeness = {
      acquireSession: async () => null,
      releaseSession: async () => undefined,
      bookRcpt: async () => runs[bookings++] ?? null,
    };
    const allowance = rcptPacer(politeness, 'mx.late.test', 40, () => false);
    expect(await allowance(40)).toBeGreaterThan(0);
    expect(bookings).toBe(2);
  });

  it('answers 0 once the invocation must stop and no booked slot is left', async () => {
    const memory = new MemoryPoliteness({
      maxSessionsPerHost: 1,
      rcptPerSecondPerHost: 1000,
      leaseMs: 60_000,
    });
    let stop = false;
    const allowance = rcptPacer(memory, 'mx.stop.test', 5, () => stop);
    expect(await allowance(5)).toBe(5);
    stop = true;
    expect(await allowance(5)).toBe(0);
  });
});
