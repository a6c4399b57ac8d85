// OAuth 2.0 authorization-code grants as both platforms run them (Doorkeeper-style token endpoint), with
// each platform's lifetimes, limits and refresh-token policy set by an OAuthPolicy.
import { Clock, randomToken, type FakeRequest, type FakeResponse } from './http';

export interface OAuthPolicy {
  accessTtlSeconds: number;
  /** null: refresh tokens never expire on their own. */
  refreshTtlSeconds: number | null;
  /** Most refresh tokens one user may hold at once; the oldest is revoked beyond it. */
  maxActiveRefreshTokens: number | null;
  /** Issuing a refresh token revokes every older one of the grant (Salesloft rotation). */
  rotationRevokesOlder: boolean;
  /** Least time between two new access tokens for one user; sooner gets 429 (Outreach). 0: no limit. */
  issueIntervalMs: number;
  /** Extra query parameters on the redirect back (Salesloft adds `context` and `scope`). */
  redirectExtras(grant: { userId: number; scopes: string[] }): Record<string, string>;
  /** Scopes granted when the authorize request names none. */
  defaultScopes: string[];
  /** The answer to a token request made too soon after the last one (issueIntervalMs). */
  tooSoon(retryAt: number): FakeResponse;
}

interface Grant {
  id: number;
  userId: number;
  scopes: string[];
  revoked: boolean;
  lastIssuedAt: number | null;
}

interface RefreshToken {
  grantId: number;
  createdAt: number;
  expiresAt: number | null;
  revoked: boolean;
}

interface Code {
  userId: number;
  redirectUri: string;
  scopes: string[];
  expiresAt: number;
  used: boolean;
}

export type Authenticated =
  | { ok: true; userId: number; scopes: string[] }
  | { ok: false; reason: 'missing' | 'invalid' | 'expired' | 'revoked' };

// Doorkeeper's wording, which the reference quotes for Salesloft ("…invalid, expired, revoked…", §6.2.4).
const INVALID_GRANT =
  'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.';

/** Ten minutes, Doorkeeper's default life of an authorization code. [UNVERIFIED for both platforms] */
const CODE_TTL_MS = 10 * 60_000;

export class OAuthServer {
  readonly clientId = `client-${randomToken(8)}`;
  readonly clientSecret = `secret-${randomToken(16)}`;
  private grants = new Map<number, Grant>();
  private codes = new Map<string, Code>();
  private access = new Map<string, { grantId: number; expiresAt: number }>();
  private refresh = new Map<string, RefreshToken>();
  private nextGrantId = 1;
  consentUserId: number | null = null;
  consentDenied = false;
  /** Token requests seen, for tests that count refreshes. */
  readonly tokenRequests: Array<{ at: number; grantType: string; status: number }> = [];

  constructor(
    private readonly clock: Clock,
    readonly policy: OAuthPolicy,
  ) {}

  /** `GET <oauth>/authorize`: an auto-consenting user (consentUserId) answers 302 back to redirect_uri. */
  authorize(req: FakeRequest, userExists: (id: number) => boolean): FakeResponse {
    const q = req.url.searchParams;
    const redirectUri = q.get('redirect_uri');
    if (q.get('client_id') !== this.clientId) {
      return { status: 401, body: { error: 'invalid_client', error_description: 'Unknown client_id.' } };
    }
    if (!redirectUri || !/^https?:\/\//.test(redirectUri)) {
      return {
        status: 400,
        body: { error: 'invalid_request', error_description: 'redirect_uri is missing.' },
      };
    }
    const back = new URL(redirectUri);
    const state = q.get('state');
    if (state !== null) back.searchParams.set('state', state);
    if (q.get('response_type') !== 'code') {
      back.searchParams.set('error', 'unsupported_response_type');
      return { status: 302, headers: { location: back.toString() } };
    }
    const userId = this.consentUserId;
    if (this.consentDenied || userId === null || !userExists(userId)) {
      back.searchParams.set('error', 'access_denied');
      back.searchParams.set('error_description', 'The resource owner denied the request.');
      return { status: 302, headers: { location: back.toString() } };
    }
    const asked = (q.get('scope') ?? '').split(/[\s+]+/).filter(Boolean);
    const scopes = asked.length > 0 ? asked : this.policy.defaultScopes;
    const code = randomToken(16);
    this.codes.set(code, {
      userId,
      redirectUri,
      scopes,
      expiresAt: this.clock.now() + CODE_TTL_MS,
      used: false,
    });
    back.searchParams.set('code', code);
    for (const [k, v] of Object.entries(this.policy.redirectExtras({ userId, scopes })))
      back.searchParams.set(k, v);
    return { status: 302, headers: { location: back.toString() } };
  }

  /** `POST <oauth>/token`, form-encoded (JSON accepted too), grant types authorization_code and refresh_token. */
  token(req: FakeRequest): FakeResponse {
    const form = parseForm(req);
    const grantType = form.get('grant_type') ?? '';
    const out = this.tokenInner(req, form, grantType);
    this.tokenRequests.push({ at: this.clock.now(), grantType, status: out.status });
    return out;
  }

  private tokenInner(req: FakeRequest, form: URLSearchParams, grantType: string): FakeResponse {
    const [basicId, basicSecret] = basicCredentials(req);
    const clientId = form.get('client_id') ?? basicId;
    const clientSecret = form.get('client_secret') ?? basicSecret;
    if (clientId !== this.clientId || clientSecret !== this.clientSecret) {
      return oauthError(
        401,
        'invalid_client',
        'Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.',
      );
    }
    const now = this.clock.now();
    let grant: Grant | undefined;
    if (grantType === 'authorization_code') {
      const code = this.codes.get(form.get('code') ?? '');
      if (!code || code.used || code.expiresAt < now || code.redirectUri !== form.get('redirect_uri')) {
        return oauthError(400, 'invalid_grant', INVALID_GRANT);
      }
      const existing = [...this.grants.values()].find((g) => g.userId === code.userId && !g.revoked);
      const tooSoon = this.tooSoon(existing, now);
      if (tooSoon) return tooSoon;
      code.used = true;
      grant = existing ?? this.newGrant(code.userId, code.scopes);
      grant.scopes = code.scopes;
    } else if (grantType === 'refresh_token') {
      const token = this.refresh.get(form.get('refresh_token') ?? '');
      grant = token && this.grants.get(token.grantId);
      if (
        !token ||
        !grant ||
        token.revoked ||
        grant.revoked ||
        (token.expiresAt !== null && token.expiresAt < now)
      ) {
        return oauthError(400, 'invalid_grant', INVALID_GRANT);
      }
      const tooSoon = this.tooSoon(grant, now);
      if (tooSoon) return tooSoon;
    } else {
      return oauthError(
        400,
        'unsupported_grant_type',
        'The authorization grant type is not supported by the authorization server.',
      );
    }
    return { status: 200, body: this.issue(grant, now), headers: { 'cache-control': 'no-store' } };
  }

  private tooSoon(grant: Grant | undefined, now: number): FakeResponse | undefined {
    const interval = this.policy.issueIntervalMs;
    if (!grant || interval <= 0 || grant.lastIssuedAt === null) return undefined;
    const retryAt = grant.lastIssuedAt + interval;
    return retryAt > now ? this.policy.tooSoon(retryAt) : undefined;
  }

  private newGrant(userId: number, scopes: string[]): Grant {
    const grant: Grant = { id: this.nextGrantId++, userId, scopes, revoked: false, lastIssuedAt: null };
    this.grants.set(grant.id, grant);
    return grant;
  }

  private issue(grant: Grant, now: number) {
    const { policy } = this;
    const accessToken = randomToken(24);
    const refreshToken = randomToken(24);
    this.access.set(accessToken, { grantId: grant.id, expiresAt: now + policy.accessTtlSeconds * 1000 });
    const mine = [...this.refresh.values()].filter((t) => t.grantId === grant.id && !t.revoked);
    if (policy.rotationRevokesOlder) for (const t of mine) t.revoked = true;
    else if (policy.maxActiveRefreshTokens !== null && mine.length >= policy.maxActiveRefreshTokens) {
      const oldest = mine.sort((a, b) => a.createdAt - b.createdAt);
      for (const t of oldest.slice(0, mine.length - policy.maxActiveRefreshTokens + 1)) t.revoked = true;
    }
    this.refresh.set(refreshToken, {
      grantId: grant.id,
      createdAt: now,
      expiresAt: policy.refreshTtlSeconds === null ? null : now + policy.refreshTtlSeconds * 1000,
      revoked: false,
    });
    grant.lastIssuedAt = now;
    return {
      access_token: accessToken,
      token_type: 'bearer',
      expires_in: policy.accessTtlSeconds,
      refresh_token: refreshToken,
      scope: grant.scopes.join(' '),
      created_at: Math.floor(now / 1000),
    };
  }

  /** Checks `Authorization: Bearer <token>`. */
  authenticate(header: string | undefined): Authenticated {
    const match = /^Bearer\s+(\S+)$/i.exec(header ?? '');
    if (!match) return { ok: false, reason: 'missing' };
    const token = this.access.get(match[1]!);
    const grant = token && this.grants.get(token.grantId);
    if (!token || !grant) return { ok: false, reason: 'invalid' };
    if (grant.revoked) return { ok: false, reason: 'revoked' };
    if (token.expiresAt <= this.clock.now()) return { ok: false, reason: 'expired' };
    return { ok: true, userId: grant.userId, scopes: grant.scopes };
  }

  /** Every access token issued so far expires now: the next API call with one is 401. */
  expireAccessTokens(): void {
    const now = this.clock.now();
    for (const t of this.access.values()) t.expiresAt = Math.min(t.expiresAt, now);
  }

  /** Revokes the grant of one user (or all): its access tokens get 401, its refresh tokens invalid_grant. */
  revokeGrant(userId?: number): number {
    let count = 0;
    for (const g of this.grants.values()) {
      if (!g.revoked && (userId === undefined || g.userId === userId)) {
        g.revoked = true;
        count += 1;
      }
    }
    return count;
  }

  /** Lets the next token request through at once, whatever issueIntervalMs says. */
  forgetLastIssue(): void {
    for (const g of this.grants.values()) g.lastIssuedAt = null;
  }

  activeRefreshTokens(userId: number): number {
    const now = this.clock.now();
    return [...this.refresh.values()].filter((t) => {
      const grant = this.grants.get(t.grantId);
      return (
        grant?.userId === userId &&
        !grant.revoked &&
        !t.revoked &&
        (t.expiresAt === null || t.expiresAt > now)
      );
    }).length;
  }
}

function parseForm(req: FakeRequest): URLSearchParams {
  const text = req.body.toString('utf8');
  if (/json/.test(req.headers['content-type'] ?? '')) {
    try {
      const parsed = JSON.parse(text) as Record<string, unknown>;
      return new URLSearchParams(Object.entries(parsed).map(([k, v]): [string, string] => [k, String(v)]));
    } catch {
      return new URLSearchParams();
    }
  }
  return new URLSearchParams(text);
}

function basicCredentials(req: FakeRequest): [string | null, string | null] {
  const match = /^Basic\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  if (!match) return [null, null];
  const [id = null, secret = null] = Buffer.from(match[1]!, 'base64').toString('utf8').split(':');
  return [id, secret];
}

function oauthError(status: number, error: string, description: string): FakeResponse {
  return {
    status,
    body: { error, error_description: description },
    headers: { 'cache-control': 'no-store' },
  };
}
