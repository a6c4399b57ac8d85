// Politeness towards each MX host across every concurrent invocation: the limits, and where they are
// kept. The shared state lives in DynamoDB (store/mx-politeness.ts: session leases and an RCPT schedule
// per host); MemoryPoliteness keeps one process's limits in memory. rcptPacer sends RCPT in booked slots.
import { systemClock, type Clock } from '../../clock';
import {
  bookingHorizonMs,
  learnedLimitsMs,
  lowered,
  type HostLimits,
  type LearnedLimits,
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
  private readonly learnt = new Map<string, { limits: HostLimits; until: number }>();
  constructor(
    private readonly limits: PolitenessLimits,
    private readonly clock: Clock = systemClock,
  ) {}

  async hostLimits(host: string): Promise<HostLimits> {
    const known = this.learnt.get(host);
    if (known && known.until > this.clock().getTime()) return known.limits;
    return { sessions: this.limits.maxSessionsPerHost, rcptPerSession: undefined };
  }

  async learn(host: string, learned: LearnedLimits): Promise<void> {
    if (!learned.fewerSessions && learned.rcptPerSession === undefined) return;
    const limits = lowered(await this.hostLimits(host), learned);
    this.learnt.set(host, { limits, until: this.clock().getTime() + learnedLimitsMs });
  }

  async acquireSession(host: string): Promise<SessionLease | null> {
    const slots = this.held.get(host) ?? new Set<number>();
    this.held.set(host, slots);
    const n = (await this.hostLimits(host)).sessions;
    for (let slot = 0; slot < n; slot++)
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
    const now = this.clock().getTime();
    const startMs = Math.max(now, this.next.get(host) ?? now);
    const count = Math.min(Math.max(1, wanted), Math.floor((now + bookingHorizonMs - startMs) / intervalMs));
    if (count < 1) return null;
    this.next.set(host, startMs + count * intervalMs);
    return { startMs, count, intervalMs };
  }
}

/** Waits that long (ms); the pacer's timers, injected so tests can fire them late and in bunches. */
export type Sleep = (ms: number) => Promise<void>;

/** A pacing wait of at most the booking horizon, never a greylisting sleep. */
const timerSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, Math.ceil(ms))));

/**
 * RCPT are sent no later than this before the end of their slot's second, so that a host still receives
 * them within it (the network delays them a little).
 */
const secondGuardMs = 200;

/**
 * Sends the next window of RCPT of one session: waits until some may go, then calls `send(n)` once with
 * 1..wanted of them, or resolves without sending once the invocation must stop.
 */
export type RcptWindow = (wanted: number, send: (n: number) => void) => Promise<void>;

/**
 * The RCPT allowance of one batch at one host: books runs of slots (up to a horizon's worth) and sends
 * windows of RCPT in them; nothing more once `shouldStop` says the invocation must finish.
 * A slot is used during the calendar second it falls in (less a guard band), never later: runs never
 * overlap and a second holds at most M slots, so no host sees more than M RCPT in a second. Slots of a
 * second that ended unused (a slow session, a late booking) are given up.
 * The clock is read in the same synchronous step as `send`: timers that fire late or bunched, or a
 * stalled event loop, only ever make a window wait or give up slots, never send one out of its second.
 */
export function rcptPacer(
  politeness: Politeness,
  host: string,
  recipients: number,
  shouldStop: () => boolean,
  clock: Clock = systemClock,
  sleep: Sleep = timerSleep,
): RcptWindow {
  let run: RcptSlots | undefined;
  /** Slots of the run used or given up. */
  let spent = 0;
  let sent = 0;
  const secondOfSlot = (r: RcptSlots, i: number) => Math.floor((r.startMs + i * r.intervalMs) / 1000);
  return async (wanted, send) => {
    if (wanted < 1) return;
    for (;;) {
      if (run) {
        const t = clock().getTime();
        const current = Math.floor(t / 1000);
        // slots of seconds over, or of this one once in its guard band, are given up
        const usable = current + (t % 1000 >= 1000 - secondGuardMs ? 1 : 0);
        while (spent < run.count && secondOfSlot(run, spent) < usable) spent++;
        if (spent < run.count) {
          const slotSecond = secondOfSlot(run, spent);
          if (slotSecond > current) {
            // too early: wait for the start of its second, then look at the clock again
            await sleep(slotSecond * 1000 - t);
            continue;
          }
          let n = 0;
          while (n < wanted && spent + n < run.count && secondOfSlot(run, spent + n) === slotSecond) n++;
          spent += n;
          sent += n;
          // no await between the clock read above and this send
          send(n);
          return;
        }
      }
      if (shouldStop()) return;
      run = (await politeness.bookRcpt(host, Math.max(wanted, recipients - sent))) ?? undefined;
      spent = 0;
      // booked beyond the horizon by other sessions: ask again when some of it has passed
      if (!run) await sleep(bookingHorizonMs / 10);
    }
  };
}
