// Politeness towards each MX host across every concurrent invocation: the limits, and where they are
// kept. The shared state lives in DynamoDB (store/mx-politeness.ts: session leases and an RCPT schedule
// per host); MemoryPoliteness keeps one process's limits in memory. rcptPacer spends booked RCPT slots.
import {
  bookingHorizonMs,
  type Politeness,
  type PolitenessLimits,
  type RcptSlots,
  type SessionLease,
} from '../../store/mx-politeness';

export { DynamoPoliteness, type Politeness } from '../../store/mx-politeness';

/** One process's limits in memory (the engine's single probes, unit tests). */
export class MemoryPoliteness implements Politeness {
  private readonly held = new Map<string, Set<number>>();
  /** Each host's next free RCPT slot (ms). */
  private readonly next = new Map<string, number>();
  constructor(
    private readonly limits: PolitenessLimits,
    private readonly now: () => number = Date.now,
  ) {}

  async acquireSession(host: string): Promise<SessionLease | null> {
    const slots = this.held.get(host) ?? new Set<number>();
    this.held.set(host, slots);
    for (let slot = 0; slot < this.limits.maxSessionsPerHost; slot++)
      if (!slots.has(slot)) {
        slots.add(slot);
        return { host, slot, owner: 'memory' };
      }
    return null;
  }

  async releaseSession(lease: SessionLease): Promise<void> {
    this.held.get(lease.host)?.delete(lease.slot);
  }

  async bookRcpt(host: string, wanted: number): Promise<RcptSlots | null> {
    const intervalMs = 1000 / this.limits.rcptPerSecondPerHost;
    const count = Math.max(1, Math.min(wanted, Math.floor(bookingHorizonMs / intervalMs)));
    const now = this.now();
    const startMs = Math.max(now, this.next.get(host) ?? now);
    if (startMs + count * intervalMs > now + bookingHorizonMs) return null;
    this.next.set(host, startMs + count * intervalMs);
    return { startMs, count, intervalMs };
  }
}

/** Waits that long; a pacing wait of at most the booking horizon, never a greylisting sleep. */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, Math.ceil(ms))));

/**
 * The RCPT allowance of one batch at one host: books runs of slots (as many as the batch has left to
 * send, up to a horizon's worth) and hands out RCPT as their slots come, waiting for them; 0 once
 * `shouldStop` says the invocation must finish.
 */
export function rcptPacer(
  politeness: Politeness,
  host: string,
  recipients: number,
  shouldStop: () => boolean,
  now: () => number = Date.now,
): (wanted: number) => Promise<number> {
  let run: RcptSlots | undefined;
  let usedInRun = 0;
  let used = 0;
  return async (wanted) => {
    for (;;) {
      if (run && usedInRun < run.count) {
        const n = Math.min(wanted, run.count - usedInRun);
        // a window goes out when the slot of its last RCPT has come (a timer may fire a little early)
        const at = run.startMs + (usedInRun + n - 1) * run.intervalMs;
        while (now() < at) await sleep(at - now());
        usedInRun += n;
        used += n;
        return n;
      }
      if (shouldStop()) return 0;
      run = (await politeness.bookRcpt(host, Math.max(wanted, recipients - used))) ?? undefined;
      usedInRun = 0;
      // booked beyond the horizon by other sessions: ask again when some of it has passed
      if (!run) await sleep(bookingHorizonMs / 10);
    }
  };
}
