// The probe verdict of each address, kept PROBE_CACHE_DAYS (DynamoDB TTL): re-validating a list or an
// address inside that window reads the verdict instead of probing again. Only conclusive outcomes are
// kept (a greylisting, timeout or proxy failure is probed again next time).
import {
  BatchGetCommand,
  BatchWriteCommand,
  type BatchGetCommandOutput,
  type BatchWriteCommandOutput,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import type { MailboxProbe } from '../validation/types';
import { probeVerdictKey } from '../../store/keys';
import { ttlAttribute } from '../../store/table';

export interface ProbeVerdictCache {
  /** Cached outcomes of the addresses that have one (lower-cased keys). */
  get(emails: readonly string[]): Promise<Map<string, MailboxProbe>>;
  put(verdicts: ReadonlyMap<string, MailboxProbe>): Promise<void>;
}

/** Outcomes worth remembering: they describe the mailbox, not the moment. */
function isCacheable(probe: MailboxProbe): boolean {
  return probe === 'accepted' || probe === 'not_found' || probe === 'full' || probe === 'unverifiable';
}

const batchGetSize = 100;
const batchWriteSize = 25;
const maxUnprocessedRounds = 8;

export class DynamoProbeVerdictCache implements ProbeVerdictCache {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly ttlDays: number,
    private readonly now: () => number = Date.now,
  ) {}

  async get(emails: readonly string[]): Promise<Map<string, MailboxProbe>> {
    const out = new Map<string, MailboxProbe>();
    if (this.ttlDays <= 0) return out;
    const unique = [...new Set(emails.map((e) => e.toLowerCase()))];
    const nowSeconds = Math.floor(this.now() / 1000);
    for (let i = 0; i < unique.length; i += batchGetSize) {
      let keys: Record<string, unknown>[] | undefined = unique
        .slice(i, i + batchGetSize)
        .map((e) => ({ ...probeVerdictKey(e) }));
      for (let round = 0; keys && keys.length > 0 && round < maxUnprocessedRounds; round++) {
        const res: BatchGetCommandOutput = await this.doc.send(
          new BatchGetCommand({ RequestItems: { [this.table]: { Keys: keys } } }),
        );
        for (const item of res.Responses?.[this.table] ?? []) {
          // TTL deletion is lazy (up to days late): an expired item is a miss
          if (typeof item.email === 'string' && Number(item[ttlAttribute]) > nowSeconds)
            out.set(item.email, item.probe as MailboxProbe);
        }
        keys = res.UnprocessedKeys?.[this.table]?.Keys;
      }
    }
    return out;
  }

  async put(verdicts: ReadonlyMap<string, MailboxProbe>): Promise<void> {
    if (this.ttlDays <= 0) return;
    const ttl = Math.floor(this.now() / 1000) + Math.round(this.ttlDays * 86400);
    const items = [...verdicts]
      .filter(([, probe]) => isCacheable(probe))
      .map(([email, probe]) => ({
        ...probeVerdictKey(email),
        email: email.toLowerCase(),
        probe,
        [ttlAttribute]: ttl,
      }));
    for (let i = 0; i < items.length; i += batchWriteSize) {
      let requests: Record<string, unknown>[] | undefined = items
        .slice(i, i + batchWriteSize)
        .map((Item) => ({ PutRequest: { Item } }));
      for (let round = 0; requests && requests.length > 0 && round < maxUnprocessedRounds; round++) {
        const res: BatchWriteCommandOutput = await this.doc.send(
          new BatchWriteCommand({ RequestItems: { [this.table]: requests } }),
        );
        requests = res.UnprocessedItems?.[this.table] as Record<string, unknown>[] | undefined;
      }
    }
  }
}

/** A process-local cache (tests, and the engine when no table is configured). */
export class MemoryProbeVerdictCache implements ProbeVerdictCache {
  private readonly items = new Map<string, { probe: MailboxProbe; until: number }>();
  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  async get(emails: readonly string[]): Promise<Map<string, MailboxProbe>> {
    const out = new Map<string, MailboxProbe>();
    for (const e of emails) {
      const hit = this.items.get(e.toLowerCase());
      if (hit && hit.until > this.now()) out.set(e.toLowerCase(), hit.probe);
    }
    return out;
  }

  async put(verdicts: ReadonlyMap<string, MailboxProbe>): Promise<void> {
    for (const [email, probe] of verdicts)
      if (isCacheable(probe)) this.items.set(email.toLowerCase(), { probe, until: this.now() + this.ttlMs });
  }
}
