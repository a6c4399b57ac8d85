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
    // any second holds at most M = 40 sends (less 20 ms: a late timer brings a window closer to the next)
    for (let i = 0, j = 0; i < sent.length; i++) {
      while (sent[i]! - sent[j]! >= 980) j++;
      expect(i - j + 1).toBeLessThanOrEqual(40);
    }
    // 120 RCPT at 40/s is 3 s: within one 5 s horizon, so a handful of bookings, not one per window
    expect(bookings).toBeLessThan(12);
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
