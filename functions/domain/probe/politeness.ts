// Politeness towards each MX host across every concurrent invocation: the limits, and where they are
// kept. The shared state lives in DynamoDB (store/mx-politeness.ts: session leases and a per-second RCPT
// bucket per host); MemoryPoliteness keeps one process's limits in memory.
import type { Politeness, PolitenessLimits, SessionLease } from '../../store/mx-politeness';

export { DynamoPoliteness, type Politeness } from '../../store/mx-politeness';

/** One process's limits in memory (the engine's single probes, unit tests). */
export class MemoryPoliteness implements Politeness {
  private readonly held = new Map<string, Set<number>>();
  private readonly counts = new Map<string, number>();
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

  async takeRcpt(host: string, wanted: number): Promise<number> {
    const key = `${host}#${Math.floor(this.now() / 1000)}`;
    const used = this.counts.get(key) ?? 0;
    const granted = Math.max(0, Math.min(wanted, this.limits.rcptPerSecondPerHost - used));
    this.counts.set(key, used + granted);
    return granted;
  }
}
