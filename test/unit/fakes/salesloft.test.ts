// The Salesloft fake over real HTTP: each quirk of reference §6.2 that a client could get wrong.
import { createHmac } from 'node:crypto';
import { startSalesloftFake, type SalesloftFake } from '../../fakes/salesloft';
import { startReceiver, type Receiver } from './receiver';

const REDIRECT = 'http://127.0.0.1:9/callback';

let fake: SalesloftFake;
beforeEach(async () => {
  fake = await startSalesloftFake({ webhookRetryMs: 20 });
});
afterEach(() => fake.stop());

async function connect(as?: number) {
  if (as !== undefined) fake.control.consentAs(as);
  const url = new URL(`${fake.oauthUrl}/authorize`);
  url.search = new URLSearchParams({
    client_id: fake.clientId,
    redirect_uri: REDIRECT,
    response_type: 'code',
    state: 'st',
  }).toString();
  const res = await fetch(url, { redirect: 'manual' });
  expect(res.status).toBe(302);
  const back = new URL(res.headers.get('location')!);
  const tokens = await token({
    grant_type: 'authorization_code',
    code: back.searchParams.get('code')!,
    redirect_uri: REDIRECT,
  });
  expect(tokens.status).toBe(200);
  return { back, ...(tokens.body as { access_token: string; refresh_token: string; expires_in: number }) };
}

async function token(form: Record<string, string>) {
  const res = await fetch(`${fake.oauthUrl}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: fake.clientId, client_secret: fake.clientSecret, ...form }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function call(access: string | null, method: string, path: string) {
  const headers: Record<string, string> = access ? { authorization: `Bearer ${access}` } : {};
  const res = await fetch(`${fake.apiUrl}${path}`, { method, headers });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : undefined) as any }; // eslint-disable-line @typescript-eslint/no-explicit-any
}
const get = (access: string | null, path: string) => call(access, 'GET', path);

describe('Salesloft fake: OAuth', () => {
  it('redirects with code, state, context and scope, and answers 7200 s tokens', async () => {
    fake.control.seed({ users: 1 });
    const t = await connect();
    expect(t.back.searchParams.get('state')).toBe('st');
    expect(t.back.searchParams.get('context')).toBe('team:1');
    expect(t.back.searchParams.get('scope')).toContain('cadences:read');
    expect(t.expires_in).toBe(7200);
    expect((await get(t.access_token, '/me')).body.data.email).toBe('rep1@example.com');
  });

  it('rotates refresh tokens: the older one is revoked, so a reuse or a parallel second refresh fails', async () => {
    fake.control.seed({ users: 1 });
    const t = await connect();
    const refreshed = await token({ grant_type: 'refresh_token', refresh_token: t.refresh_token });
    expect(refreshed.status).toBe(200);
    const reuse = await token({ grant_type: 'refresh_token', refresh_token: t.refresh_token });
    expect(reuse.status).toBe(400);
    expect(reuse.body.error).toBe('invalid_grant');
    expect(reuse.body.error_description).toMatch(/invalid, expired, revoked/);
    const latest = refreshed.body.refresh_token as string;
    const both = await Promise.all(
      [1, 2].map(() => token({ grant_type: 'refresh_token', refresh_token: latest })),
    );
    expect(both.map((b) => b.status).sort()).toEqual([200, 400]);
    expect(fake.control.activeRefreshTokens(1)).toBe(1);
  });

  it('answers 401 with no token, an expired token or a revoked grant', async () => {
    fake.control.seed({ users: 1 });
    const t = await connect();
    const none = await get(null, '/users');
    expect(none.status).toBe(401);
    expect(none.body.error).toMatch(/^No Bearer Token attached/);
    fake.control.expireAccessTokens();
    expect((await get(t.access_token, '/users')).status).toBe(401);
    const fresh = await token({ grant_type: 'refresh_token', refresh_token: t.refresh_token });
    expect((await get(fresh.body.access_token as string, '/users')).status).toBe(200);
    fake.control.revokeGrant(1);
    expect((await get(fresh.body.access_token as string, '/users')).status).toBe(401);
    expect(
      (await token({ grant_type: 'refresh_token', refresh_token: fresh.body.refresh_token as string })).body
        .error,
    ).toBe('invalid_grant');
  });
});

describe('Salesloft fake: paging and lists', () => {
  it('pages 1-based with next_page null on the last page, clamps per_page and echoes it, counts on request', async () => {
    fake.control.seed({ users: 60 });
    const t = await connect();
    const pages: Array<{ current_page: number; next_page: number | null; n: number }> = [];
    let page: number | null = 1;
    const ids = new Set<number>();
    while (page !== null) {
      const res = await get(t.access_token, `/users?page=${page}&sort_by=id&sort_direction=ASC`);
      const paging = res.body.metadata.paging;
      expect(paging.total_count).toBeUndefined();
      for (const u of res.body.data) ids.add(u.id);
      pages.push({ current_page: paging.current_page, next_page: paging.next_page, n: res.body.data.length });
      page = paging.next_page;
    }
    expect(pages).toEqual([
      { current_page: 1, next_page: 2, n: 25 },
      { current_page: 2, next_page: 3, n: 25 },
      { current_page: 3, next_page: null, n: 10 },
    ]);
    expect(ids.size).toBe(60);
    const big = await get(t.access_token, '/users?per_page=500&include_paging_counts=true');
    expect(big.body.metadata.paging).toMatchObject({
      per_page: 100,
      current_page: 1,
      next_page: null,
      total_count: 60,
      total_pages: 1,
    });
    expect((await get(t.access_token, '/users?per_page=0')).body.metadata.paging.per_page).toBe(1);
    expect((await get(t.access_token, '/users?page=-3')).body.metadata.paging.current_page).toBe(1);
    const past = await get(t.access_token, '/users?page=9');
    expect(past.status).toBe(200);
    expect(past.body.data).toEqual([]);
    expect((await get(t.access_token, '/users?sort_by=colour')).status).toBe(422);
    expect((await get(t.access_token, '/users?sort_by=colour')).body.errors.sort_by).toEqual([
      'is not included in the list',
    ]);
    expect((await get(t.access_token, '/users?favourite_colour=red')).body.data).toHaveLength(25); // unknown filters are ignored
    fake.control.setPageSizes({ maxSize: 7 });
    expect((await get(t.access_token, '/users?per_page=100')).body.data).toHaveLength(7);
  });

  it('sorts by updated_at DESC by default and filters updated_at to the microsecond', async () => {
    fake.control.seed({ users: 1, cadences: 3 });
    const t = await connect();
    const all = await get(t.access_token, '/cadences');
    expect(all.body.data.map((c: { id: number }) => c.id)).toEqual([3, 2, 1]);
    const second = all.body.data[1].updated_at as string;
    expect(second).toMatch(/\.\d{6}Z$/);
    const newer = await get(t.access_token, `/cadences?updated_at[gt]=${encodeURIComponent(second)}`);
    expect(newer.body.data.map((c: { id: number }) => c.id)).toEqual([3]);
    expect(all.body.data[0].owner).toEqual({ _href: `${fake.apiUrl}/users/1`, id: 1 });
  });

  it('keeps case-variant users apart and finds people by any address without regard to case', async () => {
    const seed = fake.control.seed({ users: 3, caseVariantDuplicates: 2 });
    expect(seed.distinctUserEmails).toBe(3);
    const t = await connect();
    const emails = (await get(t.access_token, '/users?sort_by=id&sort_direction=ASC')).body.data.map(
      (u: { email: string }) => u.email,
    );
    expect(emails).toEqual([
      'rep1@example.com',
      'rep2@example.com',
      'rep3@example.com',
      'Rep1@EXAMPLE.COM',
      'Rep2@EXAMPLE.COM',
    ]);
    const id = fake.control.addPerson({ emails: ['first@example.net', 'Second@Example.net'] });
    const found = await get(t.access_token, '/people?email_addresses[]=second@example.NET');
    expect(found.body.data.map((p: { id: number }) => p.id)).toEqual([id]);
  });
});

describe('Salesloft fake: visibility', () => {
  it('lists every user to an admin but only themselves to a rep', async () => {
    fake.control.seed({ users: 3 });
    const admin = await connect(1);
    expect((await get(admin.access_token, '/users')).body.data).toHaveLength(3);
    const rep = await connect(2);
    expect((await get(rep.access_token, '/users')).body.data.map((u: { id: number }) => u.id)).toEqual([2]);
  });
});

describe('Salesloft fake: rate limits', () => {
  it('charges each call against the team budget, more for deep pages, and answers 429 when spent', async () => {
    fake.control.seed({ users: 2 });
    const a = await connect(1);
    const b = await connect(2);
    const first = await get(a.access_token, '/users');
    expect(first.headers.get('x-ratelimit-endpoint-cost')).toBe('1');
    expect(first.headers.get('x-ratelimit-remaining-minute')).toBe('599');
    expect((await get(a.access_token, '/users?page=101')).headers.get('x-ratelimit-endpoint-cost')).toBe('3');
    expect((await get(a.access_token, '/users?page=200')).headers.get('x-ratelimit-endpoint-cost')).toBe('8');
    expect((await get(a.access_token, '/users?page=300')).headers.get('x-ratelimit-endpoint-cost')).toBe(
      '10',
    );
    const deep = await get(b.access_token, '/users?page=501'); // another token of the same team
    expect(deep.headers.get('x-ratelimit-endpoint-cost')).toBe('30');
    expect(deep.headers.get('x-ratelimit-remaining-minute')).toBe(String(600 - 1 - 3 - 8 - 10 - 30));
    fake.control.setCostPerMinute(2);
    await get(a.access_token, '/users');
    await get(b.access_token, '/users');
    const limited = await get(a.access_token, '/users');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(50);
    fake.control.advanceClock(60_000);
    expect((await get(a.access_token, '/users')).status).toBe(200);
    fake.control.rateLimitNow(3);
    expect((await get(b.access_token, '/users')).status).toBe(429);
  });

  it('can leave Retry-After out, which the vendor does not document', async () => {
    await fake.stop();
    fake = await startSalesloftFake({ retryAfterHeader: false, costPerMinute: 1 });
    fake.control.seed({ users: 1 });
    const t = await connect();
    await get(t.access_token, '/users');
    const limited = await get(t.access_token, '/users');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBeNull();
    expect(limited.headers.get('x-ratelimit-remaining-minute')).toBe('0');
  });
});

describe('Salesloft fake: scheduled emails and cadence memberships', () => {
  it('lists scheduled emails and removes a membership, cancelling its emails; processing and removed refuse with 422', async () => {
    const seed = fake.control.seed({ users: 1, cadences: 1 });
    const s = fake.control.scheduleEmail({
      userId: 1,
      to: 'Dead@Example.net',
      cadenceId: seed.cadenceIds[0],
      personEmails: ['main@example.net', 'Dead@Example.net'],
    });
    const t = await connect();
    const scheduled = await get(t.access_token, '/activities/emails?status=scheduled');
    expect(scheduled.body.data).toHaveLength(1);
    const email = scheduled.body.data[0];
    expect(email).toMatchObject({
      id: s.emailId,
      status: 'scheduled',
      recipient_email_address: 'Dead@Example.net',
      cadence: { id: seed.cadenceIds[0] },
      step: { id: s.stepId },
      user: { id: 1 },
      recipient: { id: s.personId },
      subject: null, // no email_contents:read
    });
    expect(Date.parse(email.send_after)).toBeGreaterThan(Date.now());
    const memberships = await get(
      t.access_token,
      `/cadence_memberships?person_id=${s.personId}&cadence_id=${seed.cadenceIds[0]}`,
    );
    expect(memberships.body.data.map((m: { id: number }) => m.id)).toEqual([s.membershipId]);
    fake.control.setMembershipState(s.membershipId!, 'processing');
    const busy = await call(t.access_token, 'DELETE', `/cadence_memberships/${s.membershipId}`);
    expect(busy.status).toBe(422);
    expect(busy.body.errors.current_state).toHaveLength(1);
    fake.control.setMembershipState(s.membershipId!, 'scheduled');
    expect((await call(t.access_token, 'DELETE', `/cadence_memberships/${s.membershipId}`)).status).toBe(204);
    expect(fake.control.removedMemberships()).toEqual([s.membershipId]);
    const after = await get(t.access_token, `/cadence_memberships/${s.membershipId}`);
    expect(after.body.data).toMatchObject({ current_state: 'removed', currently_on_cadence: false });
    expect((await get(t.access_token, `/activities/emails/${s.emailId}`)).body.data).toMatchObject({
      status: 'cancelled',
      send_after: null,
    });
    expect((await get(t.access_token, '/activities/emails?status=scheduled')).body.data).toEqual([]);
    expect((await call(t.access_token, 'DELETE', `/cadence_memberships/${s.membershipId}`)).status).toBe(422);
    // Re-adding reuses the record: added_at changes, created_at does not.
    const readd = await call(
      t.access_token,
      'POST',
      `/cadence_memberships?person_id=${s.personId}&cadence_id=${seed.cadenceIds[0]}`,
    );
    expect(readd.body.data).toMatchObject({
      id: s.membershipId,
      created_at: after.body.data.created_at,
      currently_on_cadence: true,
    });
    expect(readd.body.data.added_at).not.toBe(after.body.data.added_at);
  });

  it('shows a deleted person as person_deleted on memberships and 404 on GET', async () => {
    const seed = fake.control.seed({ users: 1, cadences: 1 });
    const s = fake.control.scheduleEmail({ userId: 1, to: 'p@example.net', cadenceId: seed.cadenceIds[0] });
    const t = await connect();
    expect((await call(t.access_token, 'DELETE', `/people/${s.personId}`)).status).toBe(204);
    const gone = await get(t.access_token, `/people/${s.personId}`);
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ error: 'Not Found' });
    expect((await get(t.access_token, '/people')).body.data).toEqual([]);
    expect(
      (await get(t.access_token, `/cadence_memberships/${s.membershipId}`)).body.data.person_deleted,
    ).toBe(true);
    fake.control.deleteRecord('cadences', seed.cadenceIds[0]!);
    expect((await get(t.access_token, `/cadences/${seed.cadenceIds[0]}`)).status).toBe(404);
    expect(
      (await get(t.access_token, `/cadence_memberships/${s.membershipId}`)).body.data.current_state,
    ).toBe('archived');
  });

  it('shows subjects only to an app with email_contents:read', async () => {
    await fake.stop();
    fake = await startSalesloftFake({ scopes: ['emails:read', 'email_contents:read'] });
    fake.control.seed({ users: 1 });
    fake.control.scheduleEmail({ userId: 1, to: 'p@example.net', subject: 'Hello there' });
    const t = await connect();
    expect((await get(t.access_token, '/activities/emails')).body.data[0].subject).toBe('Hello there');
  });
});

describe('Salesloft fake: webhooks', () => {
  let receiver: Receiver;
  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(() => receiver.stop());

  async function subscribe(access: string, eventType: string, url = receiver.url) {
    const res = await fetch(`${fake.apiUrl}/webhook_subscriptions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${access}`, 'content-type': 'application/json' },
      body: JSON.stringify({ callback_url: url, callback_token: 'tok', event_type: eventType }),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { data: { id: number } }).data.id;
  }

  it('signs with hex HMAC-SHA1 of the body keyed by callback_token and names the event', async () => {
    const seed = fake.control.seed({ users: 1, cadences: 1 });
    const t = await connect();
    await subscribe(t.access_token, 'cadence_membership_updated');
    await subscribe(t.access_token, 'email_updated');
    const s = fake.control.scheduleEmail({ userId: 1, to: 'p@example.net', cadenceId: seed.cadenceIds[0] });
    await call(t.access_token, 'DELETE', `/cadence_memberships/${s.membershipId}`);
    await fake.control.webhooksSettled();
    expect(receiver.received.map((r) => r.headers['x-salesloft-event'])).toEqual([
      'email_updated',
      'cadence_membership_updated',
      'email_updated',
    ]);
    for (const r of receiver.received) {
      expect(r.headers['x-salesloft-signature']).toBe(createHmac('sha1', 'tok').update(r.body).digest('hex'));
    }
    expect(JSON.parse(receiver.received[1]!.body)).toMatchObject({
      id: s.membershipId,
      current_state: 'removed',
    });
  });

  it('retries a failing webhook 3 more times, then marks the subscription failed; drops what a test loses', async () => {
    fake.control.seed({ users: 1 });
    const t = await connect();
    const id = await subscribe(t.access_token, 'person_created');
    receiver.status = 503;
    fake.control.addPerson({ emails: ['a@example.net'] });
    await fake.control.webhooksSettled();
    expect(fake.control.webhookDeliveries()[0]!.attempts).toEqual([503, 503, 503, 503]);
    expect((await get(t.access_token, `/webhook_subscriptions/${id}`)).body.data.enabled).toBe(false);
    receiver.status = 200;
    await call(t.access_token, 'DELETE', `/webhook_subscriptions/${id}`);
    await subscribe(t.access_token, 'person_created');
    fake.control.dropWebhooks(1);
    fake.control.addPerson({ emails: ['b@example.net'] });
    fake.control.addPerson({ emails: ['c@example.net'] });
    await fake.control.webhooksSettled();
    expect(
      fake.control
        .webhookDeliveries()
        .slice(1)
        .map((d) => d.outcome),
    ).toEqual(['dropped', 'delivered']);
  });
});

describe('Salesloft fake: control over HTTP', () => {
  it('runs a control method posted to /_control/<name> and reports a bad argument as 400', async () => {
    const res = await fetch(`${fake.controlUrl}/seed`, {
      method: 'POST',
      body: JSON.stringify([{ users: 2, cadences: 2 }]),
    });
    expect(await res.json()).toMatchObject({
      result: { userIds: [1, 2], cadenceIds: [1, 2], distinctUserEmails: 2 },
    });
    const bad = await fetch(`${fake.controlUrl}/scheduleEmail`, {
      method: 'POST',
      body: JSON.stringify([{ userId: 99, to: 'x@example.net' }]),
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: 'no user 99' });
  });
});
