// The shared politeness state and the probe verdict cache on a real DynamoDB Local: conditional writes
// hold the per-host session and RCPT limits under concurrent claimers; cached verdicts expire.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoPoliteness } from '../../functions/domain/probe/politeness';
import { DynamoProbeVerdictCache } from '../../functions/domain/probe/verdict-cache';
import { ProbeVerdictItems } from '../../functions/store/probe-verdicts';
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

  it("lets a crashed holder's expired lease be taken over", async () => {
    let now = 1_000_000;
    const limiter = new DynamoPoliteness(
      doc,
      table,
      { maxSessionsPerHost: 1, rcptPerSecondPerHost: 10, leaseMs: 5_000 },
      () => now,
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

  it('grants at most M RCPT per host and second across concurrent takers, partially when needed', async () => {
    const now = 2_000_000_000;
    const limits = { maxSessionsPerHost: 2, rcptPerSecondPerHost: 25, leaseMs: 60_000 };
    const takers = Array.from({ length: 6 }, () => new DynamoPoliteness(doc, table, limits, () => now));
    const granted = await Promise.all(takers.map((t) => t.takeRcpt('mx.rcpt.test', 10)));
    expect(granted.reduce((a, b) => a + b, 0)).toBe(25);
    expect(Math.max(...granted)).toBeLessThanOrEqual(10);
    expect(await takers[0]!.takeRcpt('mx.rcpt.test', 5)).toBe(0);
    // the next second refills the bucket
    const later = new DynamoPoliteness(doc, table, limits, () => now + 1000);
    expect(await later.takeRcpt('mx.rcpt.test', 30)).toBe(25);
  });
});

describe('DynamoProbeVerdictCache', () => {
  it('keeps conclusive verdicts for the configured days and forgets them after', async () => {
    let now = Date.UTC(2026, 10, 22);
    const cache = new DynamoProbeVerdictCache(new ProbeVerdictItems(doc, table), 7, () => now);
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
});
