// People against the real local runtime and its Cognito emulator: an invite's link accepted once, the
// new person's token on the API with their own permissions, the company boundary for tokens, and the
// tokens the API refuses.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoDb, tableName } from '../../functions/clients/dynamodb';
import { userKey } from '../../functions/store/keys';
import { demoPasswords } from '../../local/demo/people';
import { inviteLinkToken, outboxFiles, signInToPool } from '../helpers/people';
import { signJwt } from '../helpers/jwt-signer';
import { useTestRuntime } from '../helpers/local-runtime';
import { createPrivateKey } from 'node:crypto';

const local = useTestRuntime({ RATE_LIMIT_PER_SECOND: '1000', AUTH_CACHE_SECONDS: '0' }, { people: true });

async function api(
  method: string,
  route: string,
  { key, token, body }: { key?: string; token?: string; body?: unknown } = {},
) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (key) headers['x-api-key'] = key;
  if (token) headers.authorization = `Bearer ${token}`;
  const response = await fetch(`${local().baseUrl}${route}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, text };
}

const outbox = () => local().runtime.env.INVITE_OUTBOX_DIR!;
const people = () => local().runtime.people!;
const goodPassword = 'Correct-horse-b4ttery!';

async function invite(email: string, role: 'member' | 'admin' = 'member') {
  const seen = outboxFiles(outbox());
  const answer = await api('POST', '/v1/users', { key: local().keys.admin, body: { email, role } });
  expect([200, 201]).toContain(answer.status);
  return inviteLinkToken(outbox(), email, { seen });
}

describe('accepting an invite', () => {
  it('turns the invite into an active user once; the same link again is 410', async () => {
    const { token, url, text } = await invite('nia.newhire@acme.example');
    expect(url.startsWith(`${local().baseUrl}/#/accept-invite/`)).toBe(true);
    expect(text).toContain('the link works once');

    const weak = await api('POST', '/v1/invites/accept', { body: { token, password: 'short' } });
    expect(weak.status).toBe(400);
    expect(weak.body.error).toMatch(/at least 12 characters.*upper-case letter.*digit.*symbol/);

    const accepted = await api('POST', '/v1/invites/accept', {
      body: { token, password: goodPassword, name: 'Nia Newhire' },
    });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({
      email: 'nia.newhire@acme.example',
      name: 'Nia Newhire',
      role: 'member',
      status: 'active',
    });
    expect(accepted.body.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(Date.parse(accepted.body.createdAt)).not.toBeNaN();

    const list = await api('GET', '/v1/users?limit=100', { key: local().keys.admin });
    const listed = list.body.users.find((u: { email: string }) => u.email === 'nia.newhire@acme.example');
    expect(listed).toMatchObject({ status: 'active', id: accepted.body.id });
    expect((await api('GET', `/v1/users/${accepted.body.id}`, { key: local().keys.admin })).status).toBe(200);

    const again = await api('POST', '/v1/invites/accept', { body: { token, password: goodPassword } });
    expect(again.status).toBe(410);
    expect(again.text).toBe('{"error":"This invite link is no longer valid"}');
  });

  it("answers 410 for an expired invite's link, an unknown token and a refreshed invite's old link", async () => {
    const expired = await invite('old.invite@acme.example');
    await dynamoDb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: userKey(local().ids.acme, 'old.invite@acme.example'),
        UpdateExpression: 'SET inviteExpiresAt = :past',
        ExpressionAttributeValues: { ':past': '2020-01-01T00:00:00.000Z' },
      }),
    );
    for (const token of [expired.token, 'no-such-token']) {
      const answer = await api('POST', '/v1/invites/accept', { body: { token, password: goodPassword } });
      expect(answer.status).toBe(410);
      expect(answer.body).toEqual({ error: 'This invite link is no longer valid' });
    }

    const first = await invite('twice.invited@acme.example');
    const second = await invite('twice.invited@acme.example');
    expect(second.token).not.toBe(first.token);
    const old = await api('POST', '/v1/invites/accept', {
      body: { token: first.token, password: goodPassword },
    });
    expect(old.status).toBe(410);
    const fresh = await api('POST', '/v1/invites/accept', {
      body: { token: second.token, password: goodPassword },
    });
    expect(fresh.status).toBe(200);
  });

  it('keeps the token out of every stored item: only its SHA-256 is on the invite', async () => {
    const { token } = await invite('hash.only@acme.example');
    const { Item } = await dynamoDb().send(
      new GetCommand({
        TableName: tableName(),
        Key: userKey(local().ids.acme, 'hash.only@acme.example'),
      }),
    );
    expect(JSON.stringify(Item)).not.toContain(token);
    expect(Item?.inviteTokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(Item?.gsi1pk).toBe(`INVITETOKEN#${Item?.inviteTokenHash}`);
  });

  it('answers 400 for a malformed body', async () => {
    const answer = await api('POST', '/v1/invites/accept', { body: { password: goodPassword } });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatch(/token/);
  });
});

describe("a person's token", () => {
  it("carries the person's own permissions: a new member reads the workspace and may not invite (403)", async () => {
    const { token: link } = await invite('mo.member@acme.example');
    expect(
      (await api('POST', '/v1/invites/accept', { body: { token: link, password: goodPassword } })).status,
    ).toBe(200);
    const token = await signInToPool(
      people().endpoint,
      people().clientId,
      'mo.member@acme.example',
      goodPassword,
    );
    const users = await api('GET', '/v1/users?limit=100', { token });
    expect(users.status).toBe(200);
    expect(users.body.users.map((u: { email: string }) => u.email)).toContain('ada.admin@acme.example');
    const refused = await api('POST', '/v1/users', { token, body: { email: 'x@acme.example' } });
    expect(refused.status).toBe(403);
  });

  it("never reads another company's data", async () => {
    const globex = await signInToPool(
      people().endpoint,
      people().clientId,
      'gina.admin@globex.example',
      demoPasswords['gina.admin@globex.example']!,
    );
    const mine = await api('GET', '/v1/users?limit=100', { token: globex });
    expect(mine.status).toBe(200);
    expect(mine.body.users.every((u: { email: string }) => u.email.endsWith('@globex.example'))).toBe(true);
    const acmeAdmin = (await api('GET', '/v1/users?limit=100', { key: local().keys.admin })).body.users.find(
      (u: { email: string }) => u.email === 'ada.admin@acme.example',
    );
    expect((await api('GET', `/v1/users/${acmeAdmin.id}`, { token: globex })).status).toBe(404);
  });

  it('answers 401 Invalid token for a bad signature, another client, an expired token and a foreign sub', async () => {
    const ada = await signInToPool(
      people().endpoint,
      people().clientId,
      'ada.admin@acme.example',
      demoPasswords['ada.admin@acme.example']!,
    );
    expect((await api('GET', '/v1/usage', { token: ada })).status).toBe(200);
    // The emulator's own signing key (shipped in its package): tokens it would never issue.
    const shipped = JSON.parse(
      readFileSync(
        path.join(
          path.dirname(require.resolve('cognito-local/package.json')),
          'lib/keys/cognitoLocal.private.json',
        ),
        'utf8',
      ),
    ) as { pem: string };
    const emulatorKey = { kid: 'CognitoLocal', privateKey: createPrivateKey(shipped.pem) };
    const claims = JSON.parse(Buffer.from(ada.split('.')[1]!, 'base64url').toString()) as Record<
      string,
      unknown
    >;
    const now = Math.floor(Date.now() / 1000);
    const [head, payload, signature] = ada.split('.');
    const flipped = `${head}.${payload}.${signature!.slice(0, -4)}${signature!.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`;
    for (const token of [
      flipped,
      signJwt(emulatorKey, { ...claims, client_id: 'another-client' }),
      signJwt(emulatorKey, { ...claims, iat: now - 7200, exp: now - 3600 }),
      signJwt(emulatorKey, { ...claims, sub: '00000000-0000-4000-8000-00000000dead' }),
    ]) {
      const answer = await api('GET', '/v1/usage', { token });
      expect(answer.status).toBe(401);
      expect(answer.text).toBe('{"error":"Invalid token"}');
    }
  });
});

describe('a forgotten password', () => {
  const reset = (body: unknown) => api('POST', '/v1/password-resets', { body });
  const confirm = (body: unknown) => api('POST', '/v1/password-resets/confirm', { body });

  it('answers the same for a known and an unknown address, and emails only the known one', async () => {
    const seen = outboxFiles(outbox());
    const known = await reset({ email: 'Max.Member@acme.example' });
    const unknown = await reset({ email: 'nobody.here@acme.example' });
    expect(known.status).toBe(202);
    expect(unknown.status).toBe(202);
    expect(unknown.text).toBe(known.text);
    const { token, url } = await inviteLinkToken(outbox(), 'max.member@acme.example', {
      seen,
      page: 'reset-password',
    });
    expect(url.startsWith(`${local().baseUrl}/#/reset-password/`)).toBe(true);
    const files = [...outboxFiles(outbox())].filter((name) => !seen.has(name));
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^password_reset-/);

    const weak = await confirm({ token, password: 'weak' });
    expect(weak.status).toBe(400);
    const newPassword = 'Max-new-Passw0rd!!';
    const changed = await confirm({ token, password: newPassword });
    expect(changed.status).toBe(200);
    expect((await confirm({ token, password: newPassword })).text).toBe(
      '{"error":"This password reset link is no longer valid"}',
    );
    await expect(
      signInToPool(
        people().endpoint,
        people().clientId,
        'max.member@acme.example',
        demoPasswords['max.member@acme.example']!,
      ),
    ).rejects.toThrow(/refused/);
    const token2 = await signInToPool(
      people().endpoint,
      people().clientId,
      'max.member@acme.example',
      newPassword,
    );
    expect((await api('GET', '/v1/usage', { token: token2 })).status).toBe(200);
  });

  it('refuses an unknown token with 410 and a malformed body with 400', async () => {
    expect((await confirm({ token: 'no-such', password: 'Correct-horse-b4ttery!' })).status).toBe(410);
    expect((await reset({})).status).toBe(400);
  });
});
