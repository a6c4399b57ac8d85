// verifyPersonToken against our own keys served from a loopback JWKS (127.0.34.1): only a live access
// token of the console's client, issued by the pool and signed by one of its keys, names a person.
import { verifyPersonToken } from '../../../functions/clients/person-tokens';
import { InvalidTokenError, ServiceUnavailableError } from '../../../functions/errors';
import { resetSettings } from '../../../functions/settings';
import { newTestKey, signJwt, startJwksServer } from '../../helpers/jwt-signer';

const pool = 'us-east-1_TestPool1';
const clientId = 'console-client-1';
const poolKey = newTestKey('pool-key-1');
const strangerKey = newTestKey('pool-key-1');
let jwks: Awaited<ReturnType<typeof startJwksServer>>;

const now = () => Math.floor(Date.now() / 1000);
const claims = (overrides: Record<string, unknown> = {}) => ({
  sub: '5f0c1a9e-0000-4000-8000-000000000001',
  iss: jwks.issuer,
  client_id: clientId,
  token_use: 'access',
  iat: now() - 10,
  exp: now() + 3600,
  ...overrides,
});

beforeAll(async () => {
  jwks = await startJwksServer('127.0.34.1', pool, [poolKey]);
  process.env.PEOPLE_TOKEN_ISSUER = jwks.issuer;
  process.env.PEOPLE_CLIENT_ID = clientId;
  resetSettings();
});

afterAll(async () => {
  await jwks.close();
  delete process.env.PEOPLE_TOKEN_ISSUER;
  delete process.env.PEOPLE_CLIENT_ID;
  resetSettings();
});

describe('verifyPersonToken', () => {
  it("returns the sub of a live access token of the console's client", async () => {
    await expect(verifyPersonToken(signJwt(poolKey, claims()))).resolves.toEqual({
      sub: '5f0c1a9e-0000-4000-8000-000000000001',
    });
  });

  it.each([
    ['a signature by a key the pool never had (same kid)', () => signJwt(strangerKey, claims())],
    ['another app client', () => signJwt(poolKey, claims({ client_id: 'someone-else' }))],
    ['an expiry in the past', () => signJwt(poolKey, claims({ iat: now() - 7200, exp: now() - 3600 }))],
    ['another issuer', () => signJwt(poolKey, claims({ iss: 'http://127.0.34.1:1/other-pool' }))],
    ['an id token instead of an access token', () => signJwt(poolKey, claims({ token_use: 'id' }))],
    ['no sub', () => signJwt(poolKey, claims({ sub: undefined }))],
    [
      'a tampered payload',
      () => {
        const [head, , signature] = signJwt(poolKey, claims()).split('.');
        const forged = Buffer.from(JSON.stringify(claims({ sub: 'someone-else' }))).toString('base64url');
        return `${head}.${forged}.${signature}`;
      },
    ],
    ['no JWT at all', () => 'not-a-token'],
  ])('refuses %s with InvalidTokenError (401 Invalid token)', async (_what, token) => {
    const refusal = verifyPersonToken(token()).catch((error: unknown) => error);
    const error = await refusal;
    expect(error).toBeInstanceOf(InvalidTokenError);
    expect((error as InvalidTokenError).statusCode).toBe(401);
    expect((error as Error).message).toBe('Invalid token');
  });

  it('refuses every token when no user pool is configured', async () => {
    delete process.env.PEOPLE_CLIENT_ID;
    resetSettings();
    try {
      await expect(verifyPersonToken(signJwt(poolKey, claims()))).rejects.toBeInstanceOf(InvalidTokenError);
    } finally {
      process.env.PEOPLE_CLIENT_ID = clientId;
      resetSettings();
    }
  });

  it("answers 503, not 401, when the pool's keys cannot be fetched", async () => {
    const down = await startJwksServer('127.0.34.1', pool, [poolKey]);
    await down.close();
    process.env.PEOPLE_TOKEN_ISSUER = down.issuer;
    resetSettings();
    try {
      const token = signJwt(poolKey, { ...claims(), iss: down.issuer });
      await expect(verifyPersonToken(token)).rejects.toBeInstanceOf(ServiceUnavailableError);
    } finally {
      process.env.PEOPLE_TOKEN_ISSUER = jwks.issuer;
      resetSettings();
    }
  });
});
