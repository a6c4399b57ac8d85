// Can the resolver be trusted? Filtered office and CI networks and captive portals answer NXDOMAIN (or
// nothing) for every name; read literally, that turns a whole list into non-existent domains. Before a
// negative answer becomes a verdict, the engine asks whether a few names that certainly receive mail
// (DNS_CANARY_DOMAINS) resolve; while none does, the resolver is broken and no domain is called
// non-existent. The answer is kept for a while so a list of dead domains costs a check every 30 s,
// not one per domain.
import { systemClock, type Clock } from '../../clock';
import type { Settings } from '../../settings';
import { createResolver, parseDnsServers, type DnsClient } from './dns-lookup';

/** A broken (or healed) resolver is noticed within this long. */
const dnsHealthRecheckMs = 30_000;

/** "a.com, b.com" -> ["a.com", "b.com"]; an empty value turns the check off. */
export function parseDnsCanaries(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s.length > 0);
}

export interface DnsHealthEvents {
  /** The resolver answered none of the canaries (called on the change, not on every check). */
  onBroken?(canaries: readonly string[]): void;
  /** It answers again after being broken. */
  onHealed?(canaries: readonly string[]): void;
  /** Every check that found it broken (at most one per dnsHealthRecheckMs): the deployed metric. */
  onBrokenCheck?(): void;
}

export class DnsHealth {
  private broken: boolean | undefined;
  private checkedAt = Number.NEGATIVE_INFINITY;
  private pending: Promise<boolean> | undefined;

  constructor(
    private readonly dns: DnsClient,
    readonly canaries: readonly string[],
    private readonly events: DnsHealthEvents = {},
    private readonly clock: Clock = systemClock,
  ) {}

  /** False when the check is off. */
  get enabled(): boolean {
    return this.canaries.length > 0;
  }

  /** What the last check found, without checking (undefined: never checked). */
  get lastKnownBroken(): boolean | undefined {
    return this.broken;
  }

  /** True while none of the canaries resolves; checks at most every dnsHealthRecheckMs, one at a time. */
  async isBroken(): Promise<boolean> {
    if (!this.enabled) return false;
    if (this.broken !== undefined && this.clock().getTime() - this.checkedAt < dnsHealthRecheckMs)
      return this.broken;
    this.pending ??= this.check().finally(() => (this.pending = undefined));
    return this.pending;
  }

  private async check(): Promise<boolean> {
    const answers = await Promise.allSettled(this.canaries.map((name) => this.dns.resolveMx(name)));
    // one canary with a mail server is enough: a provider may be down, the resolver is not
    const broken = !answers.some((a) => a.status === 'fulfilled' && a.value.length > 0);
    const was = this.broken;
    this.broken = broken;
    this.checkedAt = this.clock().getTime();
    if (broken) this.events.onBrokenCheck?.();
    if (broken && was !== true) this.events.onBroken?.(this.canaries);
    if (!broken && was === true) this.events.onHealed?.(this.canaries);
    return broken;
  }
}

/**
 * One check of the resolver the validator would use (npm start's banner): broken when none of the
 * canaries resolves; false when the check is off.
 */
export async function checkResolver(
  s: Pick<Settings, 'DNS_SERVERS' | 'DNS_TIMEOUT_MS' | 'DNS_CANARY_DOMAINS'>,
) {
  const canaries = parseDnsCanaries(s.DNS_CANARY_DOMAINS);
  const health = new DnsHealth(createResolver(parseDnsServers(s.DNS_SERVERS), s.DNS_TIMEOUT_MS, 1), canaries);
  return { broken: await health.isBroken(), canaries };
}
