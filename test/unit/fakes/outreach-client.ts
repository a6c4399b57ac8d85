// Requests the Outreach fake's own tests make: the OAuth dance and JSON:API calls over real HTTP.
import type { OutreachFake } from '../../fakes/outreach';

const JSONAPI = { 'content-type': 'application/vnd.api+json' };
export const REDIRECT = 'http://127.0.0.1:9/callback';

/** Helpers bound to the fake of the running test (`fake` is read at each call). */
export function outreachClient(fake: () => OutreachFake) {
  async function connect(
    scope = 'users.read mailboxes.read sequences.all sequenceStates.all mailings.read prospects.all webhooks.all',
  ) {
    const url = new URL(`${fake().oauthUrl}/authorize`);
    url.search = new URLSearchParams({
      client_id: fake().clientId,
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope,
      state: 's-1',
    }).toString();
    const res = await fetch(url, { redirect: 'manual' });
    expect(res.status).toBe(302);
    const back = new URL(res.headers.get('location')!);
    expect(back.origin + back.pathname).toBe(REDIRECT);
    expect(back.searchParams.get('state')).toBe('s-1');
    const code = back.searchParams.get('code')!;
    const tokens = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT });
    expect(tokens.status).toBe(200);
    return {
      code,
      ...(tokens.body as {
        access_token: string;
        refresh_token: string;
        expires_in: number;
        scope: string;
        token_type: string;
        created_at: number;
      }),
    };
  }

  async function token(form: Record<string, string>) {
    const res = await fetch(`${fake().oauthUrl}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: fake().clientId, client_secret: fake().clientSecret, ...form }),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
  }

  async function get(access: string, path: string, headers: Record<string, string> = JSONAPI) {
    const url = path.startsWith('http') ? path : `${fake().apiUrl}${path}`;
    const res = await fetch(url, { headers: { ...headers, authorization: `Bearer ${access}` } });
    return { status: res.status, headers: res.headers, body: (await res.json()) as any }; // eslint-disable-line @typescript-eslint/no-explicit-any
  }

  async function send(access: string, method: string, path: string, body?: unknown) {
    const res = await fetch(`${fake().apiUrl}${path}`, {
      method,
      headers: { ...JSONAPI, authorization: `Bearer ${access}` },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
  }

  return { connect, token, get, send };
}
