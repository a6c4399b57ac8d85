// The shared politeness state and the probe verdict cache on a real DynamoDB Local: conditional writes
// hold the per-host session and RCPT limits under concurrent claimers; cached verdicts expire.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoPoliteness } from '../../functions/domain/probe/politeness';
import { DynamoProbeVerdictCache } from '../../functions/domain/probe/verdict-cache';
import {
  entriesPerShard,
  ProbeVerdictItems,
  shardOf,
  shardsPerDomain,
} from '../../functions/store/probe-verdicts';
import { ensureTable, startDynamoDbLocal, type DynamoDbLocal } from '../../local/dynamodb';

let dynamo: DynamoDbLocal;
let doc: DynamoDBDocumentClient;
const table = 'mailvet-probe-test';

beforeAll(async () => {
  dynamo = await startDynamoDbLocal();
  await ensureTable(dynamo.endpoint, table);
  doc = DynamoDBDocumentClient.from(
    new DynamoDBClient({
      endpoint: dynamo.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    }),
  );
});

afterAll(async () => {
  doc?.destroy();
  await dynamo?.stop();
});

describe('DynamoPoliteness', () => {
  it('never grants more than N sessions per host to concurrent claimers, and frees released slots', async () => {
    // separate instances: as many invocations would hold them
    const limiters = Array.from(
      { length: 8 },
      () =>
        new DynamoPoliteness(doc, table, {
          maxSessionsPerHost: 3,
          rcptPerSecondPerHost: 10,
          leaseMs: 60_000,
        }),
    );
    const leases = await Promise.all(limiters.map((l) => l.acquireSession('mx.sessions.test')));
    const held = leases.filter((l) => l !== null);
    expect(held).toHaveLength(3);
    expect(new Set(held.map((l) => l!.slot)).size).toBe(3);
    // another host has its own slots
    expect(await limiters[0]!.acquireSession('mx.other.test')).not.toBeNull();
    await limiters[0]!.releaseSession(held[0]!);
    expect(await limiters[1]!.acquireSession('mx.sessions.test')).toMatchObject({ slot: held[0]!.slot });
    expect(await limiters[2]!.acquireSession('mx.sessions.test')).toBeNull();
  });

  it('keeps what a host taught for every invocation: fewer sessions, fewer RCPT per session', async () => {
    const limits = { maxSessionsPerHost: 3, rcptPerSecondPerHost: 10, leaseMs: 60_000 };
    const teacher = new DynamoPoliteness(doc, table, limits);
    const other = new DynamoPoliteness(doc, table, limits);
    expect(await other.hostLimits('mx.learns.test')).toEqual({ sessions: 3, rcptPerSession: undefined });
    await teacher.learn('mx.learns.test', { fewerSessions: true, rcptPerSession: 10 });
    await teacher.learn('mx.learns.test', { rcptPerSession: 25 });
    // a fresh invocation reads it from the table
    const fresh = new DynamoPoliteness(doc, table, limits);
    expect(await fresh.hostLimits('mx.learns.test')).toEqual({ sessions: 2, rcptPerSession: 10 });
    const leases = await Promise.all([1, 2, 3].map(() => fresh.acquireSession('mx.learns.test')));
    expect(leases.filter((l) => l !== null)).toHaveLength(2);
    // never below one session
    for (let i = 0; i < 4; i++) await teacher.learn('mx.learns.test', { fewerSessions: true });
    expect(await new DynamoPoliteness(doc, table, limits).hostLimits('mx.learns.test')).toMatchObject({
      sessions: 1,
    });
  });

  it("lets a crashed holder's expired lease be taken over", async () => {
    let now = 1_000_000;
    const limiter = new DynamoPoliteness(
      doc,
      table,
      { maxSessionsPerHost: 1, rcptPerSecondPerHost: 10, leaseMs: 5_000 },
      () => new Date(now),
    );
    const first = await limiter.acquireSession('mx.expiry.test');
    expect(first).not.toBeNull();
    expect(await limiter.acquireSession('mx.expiry.test')).toBeNull();
    now += 5_001;
    const second = await limiter.acquireSession('mx.expiry.test');
    expect(second).not.toBeNull();
    // the old holder's release does not free the new holder's slot
    await limiter.releaseSession(first!);
    expect(await limiter.acquireSession('mx.expiry.test')).toBeNull();
  });

  it('books RCPT slots 1/M s apart across concurrent bookers, never beyond the horizon', async () => {
    let now = 2_000_000_000_000;
    const limits = { maxSessionsPerHost: 2, rcptPerSecondPerHost: 20, leaseMs: 60_000 };
    const bookers = Array.from(
      { length: 6 },
      () => new DynamoPoliteness(doc, table, limits, () => new Date(now)),
    );
    const runs = await Promise.all(bookers.map((b) => b.bookRcpt('mx.rcpt.test', 30)));
    const booked = runs.filter((r) => r !== null);
    // 5 s of slots at 20/s: 100 slots, so three runs of 30 fit, a fourth gets the 10 left, and the other
    // bookers are told to wait
    expect(booked.map((r) => r.count).sort((a, b) => a - b)).toEqual([10, 30, 30, 30]);
    const slots = booked.flatMap((r) =>
      Array.from({ length: r.count }, (_, i) => r.startMs + i * r.intervalMs),
    );
    slots.sort((a, b) => a - b);
    expect(slots[0]).toBe(now);
    for (let i = 1; i < slots.length; i++) expect(slots[i]! - slots[i - 1]!).toBeCloseTo(50, 6);
    expect(await bookers[0]!.bookRcpt('mx.rcpt.test', 30)).toBeNull();
    // as time passes the horizon moves: a small run fits again, right after the last booked slot
    now += 1_000;
    expect(await bookers[0]!.bookRcpt('mx.rcpt.test', 10)).toEqual({
      startMs: slots.at(-1)! + 50,
      count: 10,
      intervalMs: 50,
    });
    // a booker asking for more than a horizon's worth gets a horizon's worth, once the schedule is idle
    now += 60_000;
    expect(await bookers[1]!.bookRcpt('mx.rcpt.test', 500)).toEqual({
      startMs: now,
      count: 100,
      intervalMs: 50,
    });
  });
});

describe('DynamoProbeVerdictCache', () => {
  it('keeps conclusive verdicts for the configured days and forgets them after', async () => {
    let now = Date.UTC(2026, 10, 22);
    const cache = new DynamoProbeVerdictCache(new ProbeVerdictItems(doc, table), 7, () => new Date(now));
    await cache.put(
      new Map([
        ['Ann@Cache.test', 'accepted'],
        ['gone@cache.test', 'not_found'],
        ['grey@cache.test', 'greylisted'],
        ['slow@cache.test', 'timeout'],
      ] as const),
    );
    const hits = await cache.get([
      'ann@cache.test',
      'GONE@cache.test',
      'grey@cache.test',
      'slow@cache.test',
      'new@cache.test',
    ]);
    expect(Object.fromEntries(hits)).toEqual({
      'ann@cache.test': 'accepted',
      'gone@cache.test': 'not_found',
    });
    now += 7 * 86400_000 + 1000;
    expect((await cache.get(['ann@cache.test'])).size).toBe(0);
  });

  it('reads more than one BatchGet worth of addresses', async () => {
    const cache = new DynamoProbeVerdictCache(new ProbeVerdictItems(doc, table), 7);
    const emails = Array.from({ length: 130 }, (_, i) => `u${i}@many.test`);
    await cache.put(new Map(emails.map((e) => [e, 'accepted'] as const)));
    expect((await cache.get(emails)).size).toBe(130);
  });

  /** The shard items stored for a domain. */
  async function shardItems(domain: string) {
    const out = await doc.send(
      new ScanCommand({
        TableName: table,
        FilterExpression: 'begins_with(pk, :pk)',
        ExpressionAttributeValues: { ':pk': `PROBE#${domain}#` },
      }),
    );
    return out.Items ?? [];
  }
  const entriesOf = (item: Record<string, unknown>) =>
    Object.keys(item).filter((k) => k.startsWith('@')).length;

  it('stores a batch of one domain in at most one item per shard, and lets each entry expire on its own', async () => {
    let now = Date.UTC(2026, 10, 22);
    const cache = new DynamoProbeVerdictCache(new ProbeVerdictItems(doc, table), 7, () => new Date(now));
    const first = Array.from({ length: 300 }, (_, i) => `first${i}@shards.test`);
    await cache.put(new Map(first.map((e) => [e, 'accepted'] as const)));
    const items = await shardItems('shards.test');
    expect(items.length).toBeLessThanOrEqual(shardsPerDomain);
    expect(items.reduce((n, item) => n + entriesOf(item), 0)).toBe(300);

    // three days later, into the same shards: the first entries keep their own expiry
    now += 3 * 86400_000;
    const second = Array.from({ length: 50 }, (_, i) => `second${i}@shards.test`);
    await cache.put(new Map(second.map((e) => [e, 'not_found'] as const)));
    now += 4 * 86400_000 + 1000;
    const hits = await cache.get([...first, ...second]);
    expect(hits.size).toBe(50);
    expect(new Set(hits.values())).toEqual(new Set(['not_found']));
  });

  it('creates a shard once under concurrent writers, losing no entry', async () => {
    const writers = Array.from({ length: 8 }, () => new ProbeVerdictItems(doc, table));
    const until = Math.floor(Date.now() / 1000) + 3600;
    await Promise.all(
      writers.map((w, n) =>
        w.put(
          Array.from({ length: 40 }, (_, i) => [`w${n}-${i}@race.test`, 'accepted'] as [string, string]),
          until,
        ),
      ),
    );
    const all = writers.flatMap((_, n) => Array.from({ length: 40 }, (_, i) => `w${n}-${i}@race.test`));
    expect((await writers[0]!.get(all, until - 60)).size).toBe(320);
    expect((await shardItems('race.test')).length).toBeLessThanOrEqual(shardsPerDomain);
  });

  it('starts a shard over when it is full, keeping the new entries', async () => {
    const items = new ProbeVerdictItems(doc, table);
    const until = Math.floor(Date.now() / 1000) + 3600;
    const inShard: string[] = [];
    for (let i = 0; inShard.length < 3 * entriesPerShard; i++) {
      const address = `user${i}@full.test`;
      if (shardOf(address) === 0) inShard.push(address);
    }
    for (let start = 0; start < inShard.length; start += 100)
      await items.put(
        inShard.slice(start, start + 100).map((a) => [a, 'accepted'] as [string, string]),
        until,
      );
    const [shard, ...others] = await shardItems('full.test');
    expect(others).toEqual([]);
    // it started over at least once: it holds no more than its limit, the newest entries among them
    expect(entriesOf(shard!)).toBeLessThanOrEqual(entriesPerShard);
    const newest = inShard.slice(-100);
    expect((await items.get(newest, until - 60)).size).toBe(100);
    expect((await items.get(inShard.slice(0, 100), until - 60)).size).toBe(0);
  });
});
