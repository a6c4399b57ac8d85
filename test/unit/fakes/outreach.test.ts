// The Outreach fake over real HTTP: OAuth, JSON:API, stopping an email (reference §6.1).
import { startOutreachFake, type OutreachFake } from '../../fakes/outreach';
import { REDIRECT, outreachClient } from './outreach-client';

let fake: OutreachFake;
beforeEach(async () => {
  fake = await startOutreachFake({ webhookRetryMs: 20 });
});
afterEach(() => fake.stop());
const { connect, token, get, send } = outreachClient(() => fake);
describe('Outreach fake: OAuth', () => {
  it('runs the authorization-code flow and refreshes with a new refresh token, one new token a minute', async () => {
    fake.control.seed({ users: 2 });
    const first = await connect();
    expect(first).toMatchObject({ token_type: 'bearer', expires_in: 7200 });
    expect(first.scope.split(' ')).toContain('mailboxes.read');
    expect(typeof first.created_at).toBe('number');
    // A code is single-use.
    const again = await token({ grant_type: 'authorization_code', code: first.code, redirect_uri: REDIRECT });
    expect(again).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    // One new access token per user per 60 s, else 429 with Retry-After.
    const soon = await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token });
    expect(soon.status).toBe(429);
    expect(Number(soon.headers.get('retry-after'))).toBeGreaterThan(50);
    expect(JSON.stringify(soon.body)).toContain('rateLimitExceeded');
    fake.control.advanceClock(61_000);
    const refreshed = await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.refresh_token).not.toBe(first.refresh_token);
    expect(refreshed.body.access_token).not.toBe(first.access_token);
    // Outreach does not revoke the older refresh token; it counts toward the 100 active.
    expect(fake.control.activeRefreshTokens(1)).toBe(2);
    fake.control.advanceClock(61_000);
    expect((await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token })).status).toBe(
      200,
    );
  });

  it('keeps at most 100 active refresh tokens and lets refresh tokens lapse after 14 days', async () => {
    fake.control.seed({ users: 1 });
    const first = await connect();
    let latest = first.refresh_token;
    for (let i = 0; i < 100; i++) {
      fake.control.allowTokenNow();
      const r = await token({ grant_type: 'refresh_token', refresh_token: latest });
      latest = r.body.refresh_token as string;
    }
    expect(fake.control.activeRefreshTokens(1)).toBe(100);
    fake.control.allowTokenNow();
    expect((await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token })).status).toBe(
      400,
    );
    fake.control.advanceClock(14 * 24 * 3600 * 1000 + 1000);
    expect((await token({ grant_type: 'refresh_token', refresh_token: latest })).body.error).toBe(
      'invalid_grant',
    );
  });

  it('answers 401 once access tokens expire or the grant is revoked, and invalid_grant after a revoke', async () => {
    fake.control.seed({ users: 1 });
    const t = await connect();
    expect((await get(t.access_token, '/users')).status).toBe(200);
    fake.control.expireAccessTokens();
    const expired = await get(t.access_token, '/users');
    expect(expired.status).toBe(401);
    expect(expired.body.errors[0].id).toBe('unauthorized');
    fake.control.advanceClock(61_000);
    const fresh = await token({ grant_type: 'refresh_token', refresh_token: t.refresh_token });
    expect((await get(fresh.body.access_token as string, '/users')).status).toBe(200);
    fake.control.revokeGrant();
    expect((await get(fresh.body.access_token as string, '/users')).status).toBe(401);
    fake.control.advanceClock(61_000);
    expect(
      (await token({ grant_type: 'refresh_token', refresh_token: fresh.body.refresh_token as string })).body
        .error,
    ).toBe('invalid_grant');
  });

  it('sends access_denied back when the user refuses consent', async () => {
    fake.control.seed({ users: 1 });
    fake.control.denyConsent(true);
    const url = `${fake.oauthUrl}/authorize?client_id=${fake.clientId}&redirect_uri=${encodeURIComponent(REDIRECT)}&response_type=code&state=x`;
    const back = new URL((await fetch(url, { redirect: 'manual' })).headers.get('location')!);
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('code')).toBeNull();
  });
});

describe('Outreach fake: JSON:API', () => {
  it('refuses a request without the JSON:API media type with 415, with a body or without', async () => {
    fake.control.seed({ users: 1 });
    const t = await connect();
    const plain = await get(t.access_token, '/users', {});
    expect(plain.status).toBe(415);
    expect(plain.body.errors[0].id).toBe('unsupportedMediaType');
    const json = await get(t.access_token, '/users', { 'content-type': 'application/json' });
    expect(json.status).toBe(415);
  });

  it('pages by opaque cursors in links.next only: 50 by default, no next on the last page', async () => {
    const seed = fake.control.seed({ users: 120 });
    const t = await connect();
    const sizes: number[] = [];
    const ids: number[] = [];
    let next: string | undefined = `${fake.apiUrl}/mailboxes`;
    let firstNext = '';
    while (next) {
      const page = await get(t.access_token, next);
      expect(page.status).toBe(200);
      sizes.push(page.body.data.length);
      ids.push(...page.body.data.map((d: { id: number }) => d.id));
      expect(page.body.meta).toBeUndefined(); // no count unless count=true
      next = page.body.links.next;
      firstNext ||= next ?? '';
    }
    expect(sizes).toEqual([50, 50, 20]);
    expect(ids).toEqual(seed.mailboxIds);
    // A client cannot build a cursor: the one in links.next is opaque.
    const cursor = new URL(firstNext).searchParams.get('page[after]')!;
    expect(cursor).not.toMatch(/^\d+$/);
    expect((await get(t.access_token, '/mailboxes?page[after]=50')).status).toBe(400);
    expect((await get(t.access_token, '/mailboxes?page[size]=10&page[number]=2')).body.data[0].id).toBe(1);
  });

  it('honours page[size] up to the maximum, counts only with count=true, and caps offset paging', async () => {
    fake.control.seed({ users: 30 });
    fake.control.setPageSizes({ maxSize: 20 });
    const t = await connect();
    const big = await get(t.access_token, '/mailboxes?page[size]=1000&count=true');
    expect(big.body.data).toHaveLength(20);
    expect(big.body.meta).toEqual({ count: 30, count_truncated: false });
    expect(big.body.links.next).toContain('page[size]=1000');
    fake.control.truncateCounts(true);
    expect((await get(t.access_token, '/mailboxes?count=true')).body.meta).toEqual({
      count: 0,
      count_truncated: true,
    });
    expect((await get(t.access_token, '/mailboxes?page[offset]=10001&page[limit]=10')).status).toBe(400);
    expect((await get(t.access_token, '/mailboxes?page[offset]=0&page[limit]=1001')).status).toBe(400);
    const offset = await get(t.access_token, '/mailboxes?page[offset]=25&page[limit]=10');
    expect(offset.body.data.map((d: { id: number }) => d.id)).toEqual([26, 27, 28, 29, 30]);
  });

  it('serialises relationships and includes: to-one data, to-many links only, deduped included[], fields by type', async () => {
    fake.control.seed({ users: 1, mailboxesPerUser: 3 });
    const t = await connect();
    const plain = await get(t.access_token, '/mailboxes');
    expect(plain.body.included).toBeUndefined();
    const mb = plain.body.data[0];
    expect(mb).toMatchObject({
      type: 'mailbox',
      id: 1,
      relationships: { user: { data: { type: 'user', id: 1 } } },
    });
    expect(mb.relationships.mailings.data).toBeUndefined();
    expect(mb.relationships.mailings.links.related).toBe(`${fake.apiUrl}/mailings?filter[mailbox][id]=1`);
    const inc = await get(
      t.access_token,
      '/mailboxes?include=user&fields[user]=email&fields[mailbox]=email,user',
    );
    expect(inc.body.included).toHaveLength(1);
    expect(inc.body.included[0]).toMatchObject({
      type: 'user',
      id: 1,
      attributes: { email: 'rep1@example.com' },
    });
    expect(Object.keys(inc.body.included[0].attributes)).toEqual(['email']);
    expect(Object.keys(inc.body.data[0].attributes)).toEqual(['email']);
    expect(Object.keys(inc.body.data[0].relationships)).toEqual(['user']);
    expect((await get(t.access_token, '/mailboxes?include=nothing')).status).toBe(400);
  });

  it('filters by value lists, ranges, relationship ids and emails without regard to case', async () => {
    const seed = fake.control.seed({ users: 3, sequences: 1, caseVariantDuplicates: 1 });
    const t = await connect();
    const dup = await get(t.access_token, '/mailboxes?filter[email]=REP1@example.com');
    expect(dup.body.data.map((d: { attributes: { email: string } }) => d.attributes.email)).toEqual([
      'rep1@example.com',
      'Rep1@EXAMPLE.COM',
    ]);
    const soon = new Date(Date.now() + 5 * 60_000).toISOString();
    const a = fake.control.scheduleEmail({
      mailboxId: 1,
      to: 'dead@example.net',
      sequenceId: seed.sequenceIds[0],
      scheduledAt: soon,
    });
    fake.control.scheduleEmail({ mailboxId: 2, to: 'safe@example.net', sequenceId: seed.sequenceIds[0] });
    const now = new Date().toISOString().slice(0, 19);
    const q = `/mailings?filter[state]=scheduled&filter[mailbox][id]=1&filter[scheduledAt]=${now}..inf&include=prospect,sequenceState,recipients`;
    const scheduled = await get(t.access_token, q);
    expect(scheduled.body.data.map((d: { id: number }) => d.id)).toEqual([a.mailingId]);
    const types = scheduled.body.included.map((i: { type: string }) => i.type).sort();
    expect(types).toEqual(['prospect', 'recipient', 'sequenceState']);
    expect(scheduled.body.data[0].relationships.recipients.data).toEqual([
      { type: 'recipient', id: a.recipientId },
    ]);
    expect((await get(t.access_token, '/mailings?filter[id]=1,2')).body.data).toHaveLength(2);
    expect((await get(t.access_token, '/mailings?filter[id]=2..inf')).body.data).toHaveLength(1);
    expect((await get(t.access_token, '/mailings?filter[id]=neginf..1')).body.data).toHaveLength(1);
    expect((await get(t.access_token, '/mailings?filter[mailbox][email]=rep1@example.com')).status).toBe(400);
    const byProspect = await get(t.access_token, '/sequenceStates?filter[prospect][emails]=DEAD@example.net');
    expect(byProspect.body.data.map((d: { id: number }) => d.id)).toEqual([a.sequenceStateId]);
  });

  it('limits each user to the hourly budget with X-RateLimit headers and a 429 naming the retry time', async () => {
    fake.control.seed({ users: 1 });
    const t = await connect();
    const ok = await get(t.access_token, '/users');
    expect(ok.headers.get('x-ratelimit-limit')).toBe('10000');
    expect(ok.headers.get('x-ratelimit-remaining')).toBe('9999');
    expect(Number(ok.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
    fake.control.setRateLimit(2);
    await get(t.access_token, '/users');
    await get(t.access_token, '/users');
    const limited = await get(t.access_token, '/users');
    expect(limited.status).toBe(429);
    expect(limited.body.errors[0].id).toBe('rateLimitExceeded');
    expect(limited.body.errors[0].detail).toMatch(/please try again at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.$/);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(3500);
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    fake.control.setRateLimit(10_000);
    fake.control.rateLimitNow(2);
    const injected = await get(t.access_token, '/users');
    expect(injected.status).toBe(429);
    expect(Number(injected.headers.get('retry-after'))).toBeLessThanOrEqual(2);
    fake.control.advanceClock(2100);
    expect((await get(t.access_token, '/users')).status).toBe(200);
  });

  it('refuses a missing scope with 403 unauthorizedOauthScope (write does not grant read) and governance with unauthorizedRequest', async () => {
    const seed = fake.control.seed({ users: 1, sequences: 1 });
    const s = fake.control.scheduleEmail({
      mailboxId: 1,
      to: 'p@example.net',
      sequenceId: seed.sequenceIds[0],
    });
    const t = await connect('mailboxes.read sequenceStates.write');
    expect((await get(t.access_token, '/mailboxes')).status).toBe(200);
    const users = await get(t.access_token, '/users');
    expect(users.status).toBe(403);
    expect(users.body.errors[0].id).toBe('unauthorizedOauthScope');
    expect((await get(t.access_token, '/sequenceStates')).status).toBe(403);
    fake.control.denyGovernance('sequenceStates', true);
    const denied = await send(t.access_token, 'POST', `/sequenceStates/${s.sequenceStateId}/actions/pause`);
    expect(denied.body.errors[0].id).toBe('unauthorizedRequest');
    fake.control.denyGovernance('sequenceStates', false);
    expect(
      (await send(t.access_token, 'POST', `/sequenceStates/${s.sequenceStateId}/actions/pause`)).status,
    ).toBe(200);
  });
});

describe('Outreach fake: stopping a scheduled email', () => {
  it('pauses a sequence state (its scheduled mailing back to drafted), refuses a second pause with 422, resumes and finishes', async () => {
    const seed = fake.control.seed({ users: 1, sequences: 1 });
    const s = fake.control.scheduleEmail({
      mailboxId: 1,
      to: 'p@example.net',
      sequenceId: seed.sequenceIds[0],
    });
    const t = await connect();
    const paused = await send(
      t.access_token,
      'POST',
      `/sequenceStates/${s.sequenceStateId}/actions/pause?include=prospect`,
    );
    expect(paused.status).toBe(200);
    expect(paused.body.data.attributes.state).toBe('paused');
    expect(paused.body.included).toBeUndefined(); // include is not honoured on writes
    expect(fake.control.pausedSequenceStates()).toEqual([s.sequenceStateId]);
    expect(fake.control.record('mailing', s.mailingId)!.attributes).toMatchObject({
      state: 'drafted',
      scheduledAt: null,
    });
    const twice = await send(t.access_token, 'POST', `/sequenceStates/${s.sequenceStateId}/actions/pause`);
    expect(twice.status).toBe(422);
    expect(twice.body.errors[0].id).toBe('validationError');
    expect(
      (await send(t.access_token, 'POST', `/sequenceStates/${s.sequenceStateId}/actions/resume`)).status,
    ).toBe(200);
    expect(fake.control.record('mailing', s.mailingId)!.attributes.state).toBe('scheduled');
    expect(
      (await send(t.access_token, 'POST', `/sequenceStates/${s.sequenceStateId}/actions/finish`)).status,
    ).toBe(200);
    expect(
      (await send(t.access_token, 'POST', `/sequenceStates/${s.sequenceStateId}/actions/pause`)).status,
    ).toBe(422);
    expect((await get(t.access_token, `/mailings/${s.mailingId}`)).status).toBe(404);
  });

  it('has no PATCH or DELETE for mailings, and a deleted sequence state is 404 and gone from lists', async () => {
    const seed = fake.control.seed({ users: 1, sequences: 1 });
    const s = fake.control.scheduleEmail({
      mailboxId: 1,
      to: 'p@example.net',
      sequenceId: seed.sequenceIds[0],
    });
    const t = await connect();
    expect(
      (
        await send(t.access_token, 'PATCH', `/mailings/${s.mailingId}`, {
          data: { type: 'mailing', id: s.mailingId, attributes: { state: 'drafted' } },
        })
      ).status,
    ).toBe(405);
    expect((await send(t.access_token, 'DELETE', `/mailings/${s.mailingId}`)).status).toBe(405);
    expect((await send(t.access_token, 'DELETE', `/sequenceStates/${s.sequenceStateId}`)).status).toBe(204);
    const gone = await get(t.access_token, `/sequenceStates/${s.sequenceStateId}`);
    expect(gone.status).toBe(404);
    expect(gone.body.errors[0].id).toBe('resourceNotFound');
    expect((await get(t.access_token, '/sequenceStates')).body.data).toEqual([]);
    // A mailing may outlive its prospect: the relationship dangles, the include is just absent.
    const other = fake.control.scheduleEmail({ mailboxId: 1, to: 'q@example.net' });
    fake.control.deleteRecord('prospect', other.prospectId);
    const dangling = await get(t.access_token, `/mailings/${other.mailingId}?include=prospect`);
    expect(dangling.body.data.relationships.prospect.data).toEqual({
      type: 'prospect',
      id: other.prospectId,
    });
    expect(dangling.body.included).toEqual([]);
  });
});
