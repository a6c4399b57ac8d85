// Verifies a person's access token (aws-jwt-verify): signed by a key of the user pool's JWKS, issued by
// the pool (`iss`), an access token (`token_use`) of the console's app client (`client_id`), and not
// expired. One verifier per process; its JWKS cache fetches the keys once and again on an unknown `kid`.
import { JwtRsaVerifier } from 'aws-jwt-verify';
import { SimpleJwksCache } from 'aws-jwt-verify/jwk';
import { FetchError } from 'aws-jwt-verify/error';
import { InvalidTokenError, ServiceUnavailableError } from '../errors';
import { settings } from '../settings';

type Verifier = { verify(token: string): Promise<{ sub?: unknown }> };

let verifier: { issuer: string; clientId: string; verify: Verifier['verify'] } | undefined;

/** The library fetches keys over https only; the local emulator serves them over http on loopback. */
const loopbackFetcher = {
  fetch: async (uri: string): Promise<ArrayBuffer> => {
    const response = await fetch(uri).catch((error: unknown) => {
      throw new FetchError(uri, String(error));
    });
    if (!response.ok) throw new FetchError(uri, `status ${response.status}`);
    return response.arrayBuffer();
  },
};

function isLoopbackHttp(issuer: string): boolean {
  const url = new URL(issuer);
  return url.protocol === 'http:' && /^(127\.\d+\.\d+\.\d+|localhost|\[::1\])$/.test(url.hostname);
}

function build(issuer: string, clientId: string) {
  const properties = {
    issuer,
    jwksUri: `${issuer.replace(/\/+$/, '')}/.well-known/jwks.json`,
    // Access tokens carry the app client in `client_id`, not `aud`: checked below instead.
    audience: null,
    customJwtCheck: ({ payload }: { payload: Record<string, unknown> }) => {
      if (payload.token_use !== 'access') throw new Error('not an access token');
      if (payload.client_id !== clientId) throw new Error('another app client');
      if (typeof payload.sub !== 'string' || payload.sub === '') throw new Error('no sub');
    },
  };
  const created = isLoopbackHttp(issuer)
    ? JwtRsaVerifier.create(properties, { jwksCache: new SimpleJwksCache({ fetcher: loopbackFetcher }) })
    : JwtRsaVerifier.create(properties);
  return { issuer, clientId, verify: (token: string) => created.verify(token) };
}

/** The `sub` of a valid token; InvalidTokenError (401) for anything else, without saying why. */
export async function verifyPersonToken(token: string): Promise<{ sub: string }> {
  const { PEOPLE_TOKEN_ISSUER: issuer, PEOPLE_CLIENT_ID: clientId } = settings();
  if (!issuer || !clientId) throw new InvalidTokenError();
  if (verifier?.issuer !== issuer || verifier.clientId !== clientId) verifier = build(issuer, clientId);
  try {
    const payload = await verifier.verify(token);
    return { sub: String(payload.sub) };
  } catch (error) {
    // The pool's keys could not be fetched: the token may be fine, so try later rather than 401.
    if (error instanceof FetchError) throw new ServiceUnavailableError(2);
    throw new InvalidTokenError();
  }
}
