// The probe verdict of each address, kept PROBE_CACHE_DAYS (DynamoDB TTL): re-validating a list or an
// address inside that window reads the verdict instead of probing again. Only conclusive outcomes are
// kept (a greylisting, timeout or proxy failure is probed again next time).
import { systemClock, type Clock } from '../../clock';
import type { ProbeVerdictItems } from '../../store/probe-verdicts';
import type { MailboxProbe } from '../validation/types';

export interface ProbeVerdictCache {
  /** Cached outcomes of the addresses that have one (lower-cased keys). */
  get(emails: readonly string[]): Promise<Map<string, MailboxProbe>>;
  put(verdicts: ReadonlyMap<string, MailboxProbe>): Promise<void>;
}

/** Outcomes worth remembering: they describe the mailbox, not the moment. */
function isCacheable(probe: MailboxProbe): boolean {
  return (
    probe === 'accepted' ||
    probe === 'not_found' ||
    probe === 'disabled' ||
    probe === 'full' ||
    probe === 'unverifiable'
  );
}

/** The cache in the single table (store/probe-verdicts.ts), shared by every invocation. */
export class DynamoProbeVerdictCache implements ProbeVerdictCache {
  constructor(
    private readonly items: ProbeVerdictItems,
    private readonly ttlDays: number,
    private readonly clock: Clock = systemClock,
  ) {}

  async get(emails: readonly string[]): Promise<Map<string, MailboxProbe>> {
    if (this.ttlDays <= 0) return new Map();
    return (await this.items.get(emails, Math.floor(this.clock().getTime() / 1000))) as Map<
      string,
      MailboxProbe
    >;
  }

  async put(verdicts: ReadonlyMap<string, MailboxProbe>): Promise<void> {
    if (this.ttlDays <= 0) return;
    const ttl = Math.floor(this.clock().getTime() / 1000) + Math.round(this.ttlDays * 86400);
    await this.items.put(
      [...verdicts].filter(([, probe]) => isCacheable(probe)),
      ttl,
    );
  }
}

/** A process-local cache (tests, and the engine when no table is configured). */
export class MemoryProbeVerdictCache implements ProbeVerdictCache {
  private readonly items = new Map<string, { probe: MailboxProbe; until: number }>();
  constructor(
    private readonly ttlMs: number,
    private readonly clock: Clock = systemClock,
  ) {}

  async get(emails: readonly string[]): Promise<Map<string, MailboxProbe>> {
    const out = new Map<string, MailboxProbe>();
    for (const e of emails) {
      const hit = this.items.get(e.toLowerCase());
      if (hit && hit.until > this.clock().getTime()) out.set(e.toLowerCase(), hit.probe);
    }
    return out;
  }

  async put(verdicts: ReadonlyMap<string, MailboxProbe>): Promise<void> {
    for (const [email, probe] of verdicts)
      if (isCacheable(probe))
        this.items.set(email.toLowerCase(), { probe, until: this.clock().getTime() + this.ttlMs });
  }
}
