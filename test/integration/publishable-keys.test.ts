// Publishable keys over real HTTP against the local runtime: the origin lock and its CORS answers
// (preflight included), the one route such a key may call, the reduced result, and the per-IP and
// per-key limits. DNS answers come from the engine's fixture server.
import { listApiKeys, revokeApiKey } from '../../functions/domain/accounts/accounts';
import { consumePublishableLimits, createPublishableKey } from '../../functions/domain/accounts/publishable';
import { fixtureDnsSettings, startTestRuntime, type TestRuntime } from '../helpers/local-runtime';
import { startFixtureDns, type FixtureDns } from '../unit/validation/fixtures/dns-server';
import { ZONES } from '../unit/validation/fixtures/world';

const siteOrigin = 'https://shop.example';
const otherOrigin = 'https://evil.example';

let dns: FixtureDns;
let local: TestRuntime;

beforeAll(async () => {
  dns = await startFixtureDns(ZONES);
  local = await startTestRuntime({ ...fixtureDnsSettings(dns), RATE_LIMIT_PER_SECOND: '1000' });
});

afterAll(async () => {
  await local?.stop();
  await dns?.close();
});

/** A fresh publishable key of the demo admin, so each test has its own allowance. */
async function newKey(origin = siteOrigin) {
  const { rawKey, record } = await createPublishableKey({
    companyId: local.ids.acme,
    userId: local.ids.acmeAdmin,
    userEmail: 'ada.admin@acme.example',
    name: 'test widget',
    origin,
  });
  return { key: rawKey, keyId: record.keyId };
}

const validate = (key: string, origin: string | undefined, email = 'alice@example-corp.test', path = '') =>
  fetch(`${local.baseUrl}/v1/email/validate${path}`, {
    method: 'POST',
    headers: {
      'x-api-key': key,
      'content-type': 'application/json',
      ...(origin === undefined ? {} : { origin }),
    },
    body: JSON.stringify({ email }),
  });

const preflight = (origin: string | undefined) =>
  fetch(`${local.baseUrl}/v1/email/validate`, {
    method: 'OPTIONS',
    headers: {
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type,x-api-key',
      ...(origin === undefined ? {} : { origin }),
    },
  });

describe('a publishable key', () => {
  it('starts with mv_pub_ and keeps its origin in the key listing', async () => {
    const { key, keyId } = await newKey('https://Shop.Example:443/');
    expect(key).toMatch(/^mv_pub_[A-Za-z0-9_-]{32}$/);
    const listed = (await listApiKeys(local.ids.acme)).find((k) => k.keyId === keyId);
    expect(listed).toMatchObject({ origin: siteOrigin, hint: key.slice(0, 12) });
    const response = await validate(key, siteOrigin);
    expect(response.status).toBe(200);
  });

  it('answers the preflight of its origin, and 403 to any other origin or none', async () => {
    await newKey();
    const allowed = await preflight(siteOrigin);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(siteOrigin);
    expect(allowed.headers.get('access-control-allow-methods')).toBe('POST');
    expect(allowed.headers.get('access-control-allow-headers')).toContain('x-api-key');

    for (const origin of [otherOrigin, undefined]) {
      const refused = await preflight(origin);
      expect(refused.status).toBe(403);
      expect(refused.headers.get('access-control-allow-origin')).toBeNull();
      expect(await refused.json()).toEqual({ error: 'Invalid API key' });
    }
  });

  it('gets the reduced result, with its own origin alone in the CORS header', async () => {
    const { key } = await newKey();
    const response = await validate(key, siteOrigin, 'jo@gmial.com');
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe(siteOrigin);
    expect(response.headers.get('vary')).toBe('origin');
    const body = (await response.json()) as { result: object };
    expect(body).toEqual({
      email: 'jo@gmial.com',
      result: { reason: 'disposable', status: 'block_bounce_risk', subStatus: expect.anything() },
      didYouMean: 'jo@gmail.com',
    });
    expect(Object.keys(body.result).sort()).toEqual(['reason', 'status', 'subStatus']);

    const safe = await (await validate(key, siteOrigin, 'alice@example-corp.test')).json();
    expect(safe).toEqual({
      email: 'alice@example-corp.test',
      result: { reason: 'domain_ok', status: 'safe', subStatus: null },
    });
  });

  it('is refused with 403 from another origin or with no origin', async () => {
    const { key } = await newKey();
    for (const origin of [otherOrigin, undefined, 'https://shop.example.evil.example']) {
      const response = await validate(key, origin);
      expect(response.status).toBe(403);
      expect(response.headers.get('access-control-allow-origin')).toBeNull();
      expect(await response.json()).toEqual({ error: 'Invalid API key' });
    }
  });

  it('calls no route but POST /v1/email/validate', async () => {
    const { key } = await newKey();
    const headers = { 'x-api-key': key, origin: siteOrigin, 'content-type': 'application/json' };
    const body = JSON.stringify({ email: 'alice@example-corp.test' });
    const calls = [
      fetch(`${local.baseUrl}/v1/email/validate-async`, { method: 'POST', headers, body }),
      fetch(`${local.baseUrl}/v1/usage`, { headers }),
      fetch(`${local.baseUrl}/v1/email/validate-file`, { headers }),
    ];
    for (const response of await Promise.all(calls)) {
      expect(response.status).toBe(403);
      expect(await response.json()).toEqual({ error: 'Invalid API key' });
    }
  });

  it('answers 429 with Retry-After after 10 calls a minute from one IP, readable by the page', async () => {
    // Ten calls must land in one minute: start early in a minute.
    const secondOfMinute = new Date().getUTCSeconds();
    if (secondOfMinute > 45) await new Promise((r) => setTimeout(r, (61 - secondOfMinute) * 1000));
    const { key } = await newKey();
    for (let i = 0; i < 10; i++) expect((await validate(key, siteOrigin)).status).toBe(200);
    const refused = await validate(key, siteOrigin);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ error: 'Rate limit exceeded' });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers.get('access-control-allow-origin')).toBe(siteOrigin);
    // Another key is not held by this one's count.
    expect((await validate((await newKey()).key, siteOrigin)).status).toBe(200);
  }, 30_000);

  it('is refused once revoked, preflight included', async () => {
    const origin = 'https://revoked.example';
    const { key, keyId } = await newKey(origin);
    expect((await preflight(origin)).status).toBe(204);
    await revokeApiKey(local.ids.acme, keyId);
    expect((await preflight(origin)).status).toBe(403);
    // The API's key cache (AUTH_CACHE_SECONDS) may answer for a few seconds more.
    await new Promise((r) => setTimeout(r, 5500));
    expect((await validate(key, origin)).status).toBe(403);
  }, 15_000);
});

describe('the publishable limits', () => {
  const limits = { perIpPerMinute: 3, perKeyPerDay: 5 };

  it('counts per IP and minute: the next minute starts afresh, another IP has its own', async () => {
    const { keyId } = await newKey();
    const at = new Date('2026-03-01T10:00:20Z');
    for (let i = 0; i < 3; i++) await consumePublishableLimits(keyId, '198.51.100.1', limits, () => at);
    await expect(consumePublishableLimits(keyId, '198.51.100.1', limits, () => at)).rejects.toMatchObject({
      statusCode: 429,
      headers: { 'retry-after': '40' },
    });
    await consumePublishableLimits(keyId, '198.51.100.2', limits, () => at);
    await consumePublishableLimits(keyId, '198.51.100.1', limits, () => new Date('2026-03-01T10:01:00Z'));
  });

  it('caps the key per UTC day over every IP, until midnight', async () => {
    const { keyId } = await newKey();
    const at = new Date('2026-03-01T23:59:00Z');
    for (let i = 0; i < 5; i++) await consumePublishableLimits(keyId, `203.0.113.${i}`, limits, () => at);
    await expect(consumePublishableLimits(keyId, '203.0.113.99', limits, () => at)).rejects.toMatchObject({
      statusCode: 429,
      headers: { 'retry-after': '60' },
    });
    await consumePublishableLimits(keyId, '203.0.113.99', limits, () => new Date('2026-03-02T00:00:00Z'));
  });
});
