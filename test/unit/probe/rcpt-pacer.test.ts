// rcptPacer spends booked RCPT slots: whatever the sessions ask for, no second at a host ever sees more
// than M RCPT, and the batch books few runs (one write each) rather than one per pipeline window.
import { MemoryPoliteness, rcptPacer, type RcptWindow } from '../../../functions/domain/probe/politeness';
import type { Politeness } from '../../../functions/store/mx-politeness';
import { defaultBatchSessionOptions, probeBatch } from '../../../functions/domain/probe/smtp-session';
import { startThreadedSmtp } from '../validation/fixtures/threaded-smtp';

/** How many RCPT one window sent (0: none, the pacer stopped). */
async function sendWindow(window: RcptWindow, wanted: number): Promise<number> {
  let sent = 0;
  await window(wanted, (n) => {
    sent = n;
  });
  return sent;
}

/** The most of `times` (ms) in one calendar second. */
function mostInOneSecond(times: number[]): number {
  const perSecond = new Map<number, number>();
  for (const t of times) perSecond.set(Math.floor(t / 1000), (perSecond.get(Math.floor(t / 1000)) ?? 0) + 1);
  return Math.max(0, ...perSecond.values());
}

/**
 * A clock and timers the test drives, as a loaded machine would: each timer fires late (up to 600 ms), it
 * fires with every other timer due by then and some not quite due (up to 30 ms early), and other work
 * stalls the loop (the clock moves up to 700 ms) right after the timers' waiters are woken.
 */
class StallingTime {
  private timers: { at: number; fire: () => void }[] = [];
  private seed = 12345;
  constructor(public now: number) {}

  readonly clock = () => new Date(this.now);

  readonly sleep = (ms: number) =>
    new Promise<void>((fire) => this.timers.push({ at: this.now + Math.max(0, ms), fire }));

  /** Fires timers until `work` settles; then answers what it answered. */
  async drive<T>(work: Promise<T>): Promise<T> {
    let settled = false;
    const watched = work.finally(() => {
      settled = true;
    });
    for (;;) {
      // every promise waiting on nothing but other promises runs first
      await new Promise((resolve) => setImmediate(resolve));
      if (settled) return watched;
      if (this.timers.length === 0) throw new Error('nothing to wait for: the work is stuck');
      const earliest = Math.min(...this.timers.map((t) => t.at));
      this.now = Math.max(this.now, earliest + Math.floor(this.random() * 600));
      const due = this.timers.filter((t) => t.at <= this.now + 30);
      this.timers = this.timers.filter((t) => !due.includes(t));
      for (const t of due) t.fire();
      // the stall: queued after the woken waiters' first steps, before whatever they await next
      const stallMs = Math.floor(this.random() * 700);
      queueMicrotask(() => {
        this.now += stallMs;
      });
    }
  }

  /** A fixed pseudo-random sequence (a linear congruential generator), so every run is the same. */
  private random(): number {
    this.seed = (this.seed * 1103515245 + 12345) % 2 ** 31;
    return this.seed / 2 ** 31;
  }
}

describe('rcptPacer', () => {
  it('never sends more than M in a second when timers fire late, bunched or early and the loop stalls', async () => {
    const time = new StallingTime(Date.UTC(2026, 0, 1, 12, 0, 0, 300));
    const M = 10;
    const memory = new MemoryPoliteness(
      { maxSessionsPerHost: 3, rcptPerSecondPerHost: M, leaseMs: 60_000 },
      time.clock,
    );
    const sent: number[] = [];
    const session = async (recipients: number) => {
      const window = rcptPacer(memory, 'mx.stall.test', recipients, () => false, time.clock, time.sleep);
      for (let left = recipients; left > 0;) {
        await window(Math.min(20, left), (n) => {
          // when the RCPT leave: the clock as the send happens
          for (let i = 0; i < n; i++) sent.push(time.now);
          left -= n;
        });
        // the server's replies take a round trip
        await time.sleep(50);
      }
    };
    await time.drive(Promise.all([session(150), session(150), session(150)]));
    expect(sent).toHaveLength(450);
    // busy seconds were used to the full, and never beyond
    expect(mostInOneSecond(sent)).toBe(M);
  });

  it('keeps two sessions of one host under M RCPT in every second, booking a run per horizon', async () => {
    const memory = new MemoryPoliteness({ maxSessionsPerHost: 2, rcptPerSecondPerHost: 40, leaseMs: 60_000 });
    let bookings = 0;
    const politeness: Politeness = {
      hostLimits: (host) => memory.hostLimits(host),
      learn: (host, learned) => memory.learn(host, learned),
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
        await allowance(Math.min(10, left), (n) => {
          for (let i = 0; i < n; i++) sent.push(Date.now());
          left -= n;
        });
      }
    };
    await Promise.all([session(60), session(60)]);
    expect(sent.length).toBe(120);
    // no calendar second holds more than M = 40 sends
    expect(mostInOneSecond(sent)).toBeLessThanOrEqual(40);
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
      hostLimits: async () => ({ sessions: 1, rcptPerSession: undefined }),
      learn: async () => undefined,
      acquireSession: async () => null,
      releaseSession: async () => undefined,
      bookRcpt: async () => runs[bookings++] ?? null,
    };
    const allowance = rcptPacer(politeness, 'mx.late.test', 40, () => false);
    expect(await sendWindow(allowance, 40)).toBeGreaterThan(0);
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
    expect(await sendWindow(allowance, 5)).toBe(5);
    stop = true;
    expect(await sendWindow(allowance, 5)).toBe(0);
  });
});

/** Keeps the event loop busy for `ms`: a stalled process, as under heavy machine load. */
function stallFor(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // spin
  }
}

describe('rcptPacer at a real SMTP server', () => {
  it('keeps a host within M RCPT a second while this event loop stalls between sends', async () => {
    const server = await startThreadedSmtp();
    const M = 20;
    const memory = new MemoryPoliteness({ maxSessionsPerHost: 2, rcptPerSecondPerHost: M, leaseMs: 60_000 });
    // stalls of 150-450 ms every half second, besides those before each window below
    let turn = 0;
    const stalls = setInterval(() => stallFor(150 + ((turn++ * 137) % 300)), 500);
    try {
      const session = (n: number) => {
        const recipients = Array.from({ length: 40 }, (_, i) => `user${n}-${i}@stall.test`);
        const pacer = rcptPacer(memory, 'mx.stall.test', recipients.length, () => false);
        return probeBatch(
          ['127.0.0.1'],
          recipients,
          {
            ...defaultBatchSessionOptions,
            port: server.port,
            timeoutMs: 5000,
            proxies: null,
            pipelineWindow: 10,
          },
          {
            rcptWindow: async (wanted, send) => {
              stallFor((turn++ * 89) % 350);
              await pacer(wanted, send);
            },
          },
        );
      };
      const outcomes = await Promise.all([session(1), session(2)]);
      for (const out of outcomes) {
        expect(out.unfinished).toEqual([]);
        expect([...new Set(out.outcomes.values())]).toEqual(['accepted']);
      }
      const times = await server.rcptTimes();
      expect(times).toHaveLength(80);
      // counted where they arrived, in a thread this stall does not reach
      expect(mostInOneSecond(times)).toBeLessThanOrEqual(M);
    } finally {
      clearInterval(stalls);
      await server.close();
    }
  });
});
