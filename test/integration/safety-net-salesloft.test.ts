// Salesloft connected through the whole OAuth redirect and synced, against the Salesloft stand-in
// (test/fakes/salesloft: page paging until next_page is null, a cost bucket per team, refresh tokens
// that rotate and revoke the older ones): 2,000 users with case duplicates and 500 cadences; a token
// that expires mid-sync twice (so the rotated refresh token must have been stored); a rate limit
// mid-sync; and a risky scheduled email stopped by removing the cadence membership.
import { startSalesloftFake, type SalesloftFake } from '../fakes/salesloft';
import { startTestRuntime, type TestRuntime } from '../helpers/local-runtime';
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

let fake: SalesloftFake;
let local: TestRuntime;
let expectedMailboxes: string;
let cadenceCount: number;

const userRequests = () => fake.control.requests().filter((r) => r.path.startsWith('/v2/users'));
const mailboxes = async () =>
  ofPlatform(await allRows(local, '/v1/safety-net-mailboxes', 'mailboxes'), 'salesloft');
const cadences = () => allRows(local, '/v1/safety-net-sequences', 'sequences', '&service=salesloft');

async function syncNow(): Promise<string> {
  const before = (await integration(local, 'salesloft')).lastSyncAt as string;
  expect((await api(local, 'POST', '/v1/integrations/salesloft/sync')).status).toBe(202);
  return before;
}

async function expectRightLists(): Promise<void> {
  const rows = await mailboxes();
  expect(
    rows
      .map((m) => m.email)
      .sort()
      .join(','),
  ).toBe(expectedMailboxes);
  expect(await cadences()).toHaveLength(cadenceCount);
}

beforeAll(async () => {
  fake = await startSalesloftFake({ host: '127.0.35.131' });
  const seed = fake.control.seed({
    users: 2000,
    cadences: 500,
    caseVariantDuplicates: 150,
    domain: 'acme-sales.example',
  });
  expect(seed.distinctUserEmails).toBe(2000);
  // an archived cadence sends nothing and is not listed
  fake.control.archiveCadence(seed.cadenceIds[0]!);
  cadenceCount = 499;
  expectedMailboxes = [...new Set(fake.control.list('users').map((u) => String(u.email).toLowerCase()))]
    .sort()
    .join(',');
  local = await startTestRuntime({ ...platformEnv('salesloft', fake), SAFETY_NET_LOOKAHEAD_MINUTES: '0.1' });
}, 120_000);

afterAll(async () => {
  await local?.stop();
  await fake?.stop();
});

it('connects through the OAuth redirect and syncs 2,000 users (case duplicates merged) and the live cadences', async () => {
  await connect(local, 'salesloft', fake.oauthUrl);
  expect(await syncedAfter(local, 'salesloft', '')).toMatchObject({
    lastSyncError: null,
    status: 'connected',
  });
  await expectRightLists();
  const rows = await cadences();
  const first = rows.find((r) => r.crmSequenceId === String(fake.control.list('cadences')[1]!.id))!;
  expect(first.owner.email).toMatch(/@acme-sales\.example$/);
  // every page followed until next_page was null: no page past the end was asked for twice
  const pages = userRequests().map((r) => r.path);
  expect(new Set(pages).size).toBe(pages.length);
}, 180_000);

it('refreshes mid-sync with the rotated refresh token stored, twice in a row', async () => {
  for (let round = 0; round < 2; round++) {
    const before = await syncNow();
    fake.control.clearRequests();
    await until('a few user pages', async () => (userRequests().length >= 3 ? true : undefined), 60_000);
    fake.control.advanceClock(7201_000);
    const state = await syncedAfter(local, 'salesloft', before);
    expect(state.lastSyncError).toBeNull();
    await expectRightLists();
  }
  const refreshes = fake.control.tokenRequests().filter((t) => t.grantType === 'refresh_token');
  expect(refreshes).toHaveLength(2);
  // the second refresh used the token the first one issued (rotation revoked the older)
  expect(refreshes.every((t) => t.status === 200)).toBe(true);
}, 180_000);

it('refreshes an expired grant once when two syncs need it at the same time', async () => {
  const before = (await integration(local, 'salesloft')).lastSyncAt as string;
  const refreshesBefore = fake.control.tokenRequests().filter((t) => t.grantType === 'refresh_token').length;
  fake.control.advanceClock(7201_000);
  const [one, two] = await Promise.all([
    api(local, 'POST', '/v1/integrations/salesloft/sync'),
    api(local, 'POST', '/v1/integrations/salesloft/sync'),
  ]);
  expect([one.status, two.status]).toEqual([202, 202]);
  await syncedAfter(local, 'salesloft', before);
  await until(
    'both syncs done',
    async () => ((await integration(local, 'salesloft')).status === 'connected' ? true : undefined),
    60_000,
  );
  const refreshes = fake.control
    .tokenRequests()
    .filter((t) => t.grantType === 'refresh_token')
    .slice(refreshesBefore);
  // a second refresh with the same (rotated, now revoked) token would be invalid_grant
  expect(refreshes).toEqual([expect.objectContaining({ status: 200 })]);
  expect((await integration(local, 'salesloft')).lastSyncError).toBeNull();
}, 120_000);

it('waits out a rate limit mid-sync and sends nothing before the time it gave', async () => {
  const before = await syncNow();
  fake.control.clearRequests();
  await until('a few user pages', async () => (userRequests().length >= 3 ? true : undefined), 60_000);
  fake.control.rateLimitNow(3);
  expect((await syncedAfter(local, 'salesloft', before)).lastSyncError).toBeNull();
  const requests = fake.control.requests().filter((r) => r.path.startsWith('/v2/'));
  const firstLimited = requests.find((r) => r.status === 429)!;
  expect(firstLimited).toBeDefined();
  const later = requests.filter((r) => r.at > firstLimited.at && r.status !== 429);
  expect(later.length).toBeGreaterThan(0);
  expect(later.every((r) => r.at >= firstLimited.at + 2_500)).toBe(true);
  await expectRightLists();
}, 120_000);

it("stops a risky email of an activated user's mailbox by removing the cadence membership", async () => {
  const user = fake.control.list('users')[3]!;
  const mailbox = (await mailboxes()).find((m) => m.email === String(user.email).toLowerCase())!;
  expect(
    (await api(local, 'PATCH', `/v1/safety-net-mailboxes/${mailbox.id}`, { body: { activated: true } }))
      .status,
  ).toBe(200);
  const cadenceId = Number(fake.control.list('cadences')[2]!.id);
  const risky = fake.control.scheduleEmail({ userId: Number(user.id), to: 'bounce@mailvet.test', cadenceId });
  const safe = fake.control.scheduleEmail({ userId: Number(user.id), to: 'safe+sl@mailvet.test', cadenceId });
  const prevented = await until(
    'the bounce address stopped',
    async () => {
      const list = (await api(local, 'GET', '/v1/safety-net/preventions')).body.preventions as Json[];
      return list.length > 0 ? list : undefined;
    },
    30_000,
  );
  expect(prevented).toHaveLength(1);
  expect(prevented[0]).toMatchObject({
    mailbox: String(user.email).toLowerCase(),
    platform: 'salesloft',
    prospectEmail: 'bounce@mailvet.test',
    reason: 'mailbox_not_found',
    status: 'block_bounce_risk',
  });
  expect(fake.control.removedMemberships()).toContain(risky.membershipId);
  expect(fake.control.record('emails', safe.emailId)!.status).toBe('scheduled');
}, 60_000);
