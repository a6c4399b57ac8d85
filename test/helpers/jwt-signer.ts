// Test tokens signed with our own RSA keys (node:crypto), and a JWKS server on loopback that serves
// the public halves: the tokens the user pool emulator cannot make (expired, another client, another
// issuer, a key the pool never had).
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TestKey {
  kid: string;
  privateKey: KeyObject;
  jwk: Record<string, unknown>;
}

export function newTestKey(kid: string): TestKey {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { kid, privateKey, jwk: { ...publicKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' } };
}

const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** An RS256 JWT of these claims, signed by `key` (its `kid` in the header). */
export function signJwt(
  key: { kid: string; privateKey: KeyObject },
  claims: Record<string, unknown>,
): string {
  const head = `${part({ alg: 'RS256', typ: 'JWT', kid: key.kid })}.${part(claims)}`;
  return `${head}.${sign('RSA-SHA256', Buffer.from(head), key.privateKey).toString('base64url')}`;
}

/** Serves `{keys}` at `/<pool>/.well-known/jwks.json` on `host`; the issuer is `http://host:port/<pool>`. */
export async function startJwksServer(
  host: string,
  pool: string,
  keys: TestKey[],
): Promise<{ issuer: string; close(): Promise<void> }> {
  const server = http.createServer((request, response) => {
    if (request.url === `/${pool}/.well-known/jwks.json`) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ keys: keys.map((key) => key.jwk) }));
    } else {
      response.writeHead(404);
      response.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    issuer: `http://${host}:${port}/${pool}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
