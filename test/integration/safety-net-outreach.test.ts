// Outreach connected through the whole OAuth redirect and synced into the Safety Net lists, against the
// Outreach stand-in (test/fakes/outreach: JSON:API, cursor paging, 429 with its retry time, 401 after
// expiry and refresh): 2,000 mailboxes with case duplicates and 500 sequences; `activated` kept, gone
// items leave; a token that expires and a rate limit in the middle of a sync; bad states refused.
import { startOutreachFake, type OutreachFake } from '../fakes/outreach';
import type { TestRuntime } from '../helpers/local-runtime';
import { startTestRuntime } from '../helpers/local-runtime';
import { until } from '../helpers/until';
import {
  allRows,
  api,
  connect,
  integration,
  ofPlatform,
  platformEnv,
  syncedAfter,
  type Json,
} from './safety-net-harness';

let fake: OutreachFake;
let local: TestRuntime;
let expectedMailboxes: string[];
let callbackUrl: string;

const mailboxRequests = () => fake.control.requests().filter((r) => r.path.startsWith('/api/v2/mailboxes'));

async function outreachMailboxes(): Promise<Json[]> {
  return ofPlatform(await allRows(local, '/v1/safety-net-mailboxes', 'mailboxes'), 'outreach');
}

async function outreachSequences(): Promise<Json[]> {
  return allRows(local, '/v1/safety-net-sequences', 'sequences', '&service=outreach');
}

async function syncNow(): Promise<string> {
  const before = (await integration(local, 'outreach')).lastSyncAt as string;
  const started = await api(local, 'POST', '/v1/integrations/outreach/sync');
  expect(started.status).toBe(202);
  return before;
}

beforeAll(async () => {
  fake = await startOutreachFake({ host: '127.0.35.129' });
  const seed = fake.control.seed({
    users: 500,
    mailboxesPerUser: 4,
    sequences: 500,
    caseVariantDuplicates: 250,
    domain: 'acme-sales.example',
  });
  expect(seed.distinctMailboxEmails).toBe(2000);
  expectedMailboxes = fake.control
    .list('mailbox')
    .map((m) => String(m.attributes.email).toLowerCase())
    .filter((e, i, all) => all.indexOf(e) === i)
    .sort();
  local = await startTestRuntime(platformEnv('outreach', fake));
}, 120_000);

afterAll(async () => {
  await local?.stop();
  await fake?.stop();
});

it('connects through the OAuth redirect and syncs 2,000 mailboxes (case duplicates merged) and 500 sequences', async () => {
  callbackUrl = await connect(local, 'outreach', fake.oauthUrl);
  const state = await syncedAfter(local, 'outreach', '');
  expect(state).toMatchObject({ lastSyncError: null, platform: 'outreach', status: 'connected' });

  const mailboxes = await outreachMailboxes();
  // (compared as one string: a failure would print 2,000 addresses otherwise)
  expect(
    mailboxes
      .map((m) => m.email)
      .sort()
      .join(','),
  ).toBe(expectedMailboxes.join(','));
  expect(mailboxes.every((m) => m.activated === false)).toBe(true);

  const sequences = await outreachSequences();
  expect(sequences).toHaveLength(500);
  const byId = new Map(sequences.map((s) => [s.crmSequenceId, s]));
  for (const record of fake.control.list('sequence')) {
    const row = byId.get(String(record.id));
    const owner = fake.control.record('user', record.relationships.owner!)!;
    expect(row).toMatchObject({
      // the demo workspace had Outreach sequence 101 on: the same sequence, so its switch stays
      activated: String(record.id) === '101',
      name: record.attributes.name,
      owner: { email: String(owner.attributes.email).toLowerCase(), firstName: owner.attributes.firstName },
    });
  }
  // every page was followed through links.next, never built
  expect(mailboxRequests().every((r) => r.path.includes('page[size]=') && r.status === 200)).toBe(true);
}, 180_000);

it('refuses a used or unknown state with 400 and stores nothing', async () => {
  const replay = await fetch(callbackUrl, { redirect: 'manual' });
  expect(replay.status).toBe(400);
  const unknown = await fetch(`${local.baseUrl}/v1/integrations/outreach/callback?code=x&state=nope`, {
    redirect: 'manual',
  });
  expect(unknown.status).toBe(400);
  expect(((await unknown.json()) as Json).error).toMatch(/invalid or has expired/);
  const listed = await api(local, 'GET', '/v1/integrations');
  expect(listed.body.integrations.map((i: Json) => i.platform)).toEqual(['outreach']);
});

it('keeps activated across syncs and drops what Outreach no longer has', async () => {
  const [first] = await outreachMailboxes();
  expect(
    (await api(local, 'PATCH', `/v1/safety-net-mailboxes/${first.id}`, { body: { activated: true } })).status,
  ).toBe(200);
  const [sequence] = await outreachSequences();
  expect(
    (await api(local, 'PATCH', `/v1/safety-net-sequences/${sequence.id}`, { body: { activated: true } }))
      .status,
  ).toBe(200);

  // every case variant of one address
  const gone = expectedMailboxes[5]!;
  for (const m of fake.control
    .list('mailbox')
    .filter((m) => String(m.attributes.email).toLowerCase() === gone))
    expect(fake.control.deleteRecord('mailbox', m.id)).toBe(true);
  const goneSequence = fake.control.list('sequence').find((s) => String(s.id) !== sequence.crmSequenceId)!;
  expect(fake.control.deleteRecord('sequence', goneSequence.id)).toBe(true);

  await syncedAfter(local, 'outreach', await syncNow());
  const mailboxes = await outreachMailboxes();
  expect(mailboxes.find((m) => m.id === first.id)?.activated).toBe(true);
  expect(mailboxes.some((m) => m.email === gone)).toBe(false);
  expect(mailboxes).toHaveLength(1999);
  const sequences = await outreachSequences();
  expect(sequences).toHaveLength(499);
  expect(sequences.find((s) => s.id === sequence.id)?.activated).toBe(true);
  expect(sequences.map((s) => s.crmSequenceId)).not.toContain(String(goneSequence.id));
}, 120_000);

it('refreshes a token that expires in the middle of a sync, retries once, and ends with the right lists', async () => {
  const before = await syncNow();
  const refreshesBefore = fake.control.tokenRequests().filter((t) => t.grantType === 'refresh_token').length;
  fake.control.clearRequests();
  // a few pages in, every access token dies (and the one-token-a-minute rule lets a new one through)
  await until('a few mailbox pages', async () => (mailboxRequests().length >= 3 ? true : undefined), 60_000);
  fake.control.advanceClock(7201_000);
  const state = await syncedAfter(local, 'outreach', before);
  expect(state.lastSyncError).toBeNull();
  const refreshes = fake.control.tokenRequests().filter((t) => t.grantType === 'refresh_token');
  expect(refreshes.length - refreshesBefore).toBe(1);
  expect(refreshes.at(-1)!.status).toBe(200);
  // the refused call was retried once with the new token, and nothing else was refused
  expect(fake.control.requests().filter((r) => r.status === 401)).toHaveLength(1);
  expect((await outreachMailboxes()).length).toBe(1999);
  expect(await outreachSequences()).toHaveLength(499);
}, 120_000);

it('waits out rate limits in the middle of a sync, sends nothing before the time each gave, and ends with the right lists', async () => {
  // 8 calls per 2-second window: the sync (about 30 calls) meets several 429s on the way
  fake.control.setRateLimit(8, 2);
  fake.control.clearRequests();
  const before = await syncNow();
  const state = await syncedAfter(local, 'outreach', before);
  fake.control.setRateLimit(10_000, 3600);
  expect(state.lastSyncError).toBeNull();
  const requests = fake.control.requests().filter((r) => r.path.startsWith('/api/v2/'));
  const limited = requests.filter((r) => r.status === 429);
  expect(limited.length).toBeGreaterThanOrEqual(2);
  // after each 429 (Retry-After of at least 1 s), the next call waits for it: no hammering
  for (const [i, r] of requests.entries()) {
    const next = requests[i + 1];
    if (r.status === 429 && next) expect(next.at - r.at).toBeGreaterThanOrEqual(900);
  }
  expect((await outreachMailboxes()).length).toBe(1999);
  expect(await outreachSequences()).toHaveLength(499);
}, 120_000);

it('disconnects: the grant is forgotten and the Outreach items leave the lists', async () => {
  expect((await api(local, 'DELETE', '/v1/integrations/outreach')).status).toBe(204);
  expect((await api(local, 'GET', '/v1/integrations')).body.integrations).toEqual([]);
  expect(await outreachMailboxes()).toEqual([]);
  expect(await outreachSequences()).toEqual([]);
  expect((await api(local, 'POST', '/v1/integrations/outreach/sync')).status).toBe(404);
}, 60_000);
