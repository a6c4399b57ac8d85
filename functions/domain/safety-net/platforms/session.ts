// One grant's conversation with a platform, shared by both adapters: every request waits out a 429's
// retry time (kept on the connection, so other processes wait too), carries a fresh access token
// (refreshed before it expires, or once after a 401, never twice at once for one grant), and is retried
// on network errors and 5xx. Adapters see JSON bodies; use cases see plain records and typed errors.
import type { Clock } from '../../../clock';
import type { Logger } from '../../../log';
import { GrantRevokedError, PlatformError, RateLimitedError } from '../errors';

export interface Grant {
  accessToken: string;
  refreshToken: string;
  /** ISO time the access token stops working. */
  expiresAt: string;
}

/** How the session reads and replaces the stored grant (functions/domain/safety-net/grants.ts). */
export interface GrantKeeper {
  current(): Promise<{ grant: Grant; version: number }>;
  /**
   * A new grant replacing version `stale`: refreshed with `refresh` under the grant's lease, or the one
   * another process stored meanwhile. Never two refreshes of one grant at once.
   */
  refresh(
    stale: number,
    refresh: (grant: Grant) => Promise<Grant>,
  ): Promise<{ grant: Grant; version: number }>;
  /** The stored "nothing before" time of an earlier 429, if any. */
  heldUntil(): Promise<Date | undefined>;
  hold(until: Date): Promise<void>;
}

export interface SessionOptions {
  platform: string;
  keeper: GrantKeeper;
  clock: Clock;
  log: Logger;
  /** A 429 whose retry time is at most this far away is waited out; a later one throws RateLimitedError. */
  maxWaitMs?: number;
  sleep?: (ms: number) => Promise<void>;
  /** Milliseconds before one request gives up. */
  timeoutMs?: number;
}

export interface Request {
  method: 'GET' | 'POST' | 'DELETE' | 'PATCH';
  url: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** For errors and logs: what the request is, without ids or addresses ("list mailboxes"). */
  what: string;
}

export interface Response {
  status: number;
  body: unknown;
  headers: Headers;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const networkAttempts = 4;

/** The time a 429 gives: Retry-After (seconds, an HTTP date or ISO), the body's "try again at", the reset header; else a minute. */
export function retryTimeOf(headers: Headers, body: unknown, now: Date): Date {
  const at = (value: string | null | undefined): Date | undefined => {
    if (!value) return undefined;
    const text = value.trim();
    if (/^\d+(\.\d+)?$/.test(text)) {
      const n = Number(text);
      // a large number is an epoch time (seconds), a small one a delay
      return new Date(n > 1e9 ? n * 1000 : now.getTime() + n * 1000);
    }
    // an ISO time without a zone (Outreach's "try again at 2017-01-01T00:00:00") is UTC
    const parsed = Date.parse(/^\d{4}-\d\d-\d\dT[\d:.]+$/.test(text) ? `${text}Z` : text);
    return Number.isNaN(parsed) ? undefined : new Date(parsed);
  };
  const detail = JSON.stringify(body ?? '').match(/try again at ([0-9T:.\-+Z ]+\d)/i)?.[1];
  return (
    at(headers.get('retry-after')) ??
    at(detail) ??
    at(headers.get('x-ratelimit-reset')) ??
    new Date(now.getTime() + 60_000)
  );
}

async function readBody(response: globalThis.Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

export class PlatformSession {
  private hold: Date | undefined;
  private holdRead = false;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly maxWaitMs: number;
  private readonly timeoutMs: number;

  constructor(private readonly options: SessionOptions) {
    this.sleep = options.sleep ?? defaultSleep;
    this.maxWaitMs = options.maxWaitMs ?? 30_000;
    this.timeoutMs = options.timeoutMs ?? 15_000;
  }

  get platform(): string {
    return this.options.platform;
  }

  /** Waits out a known hold, or throws RateLimitedError when it is further away than maxWaitMs. */
  private async waitForHold(): Promise<void> {
    if (!this.holdRead) {
      this.holdRead = true;
      const stored = await this.options.keeper.heldUntil();
      if (stored && (!this.hold || stored > this.hold)) this.hold = stored;
    }
    if (!this.hold) return;
    const waitMs = this.hold.getTime() - this.options.clock().getTime();
    if (waitMs <= 0) return;
    if (waitMs > this.maxWaitMs) throw new RateLimitedError(this.platform, this.hold);
    this.options.log.info('waiting for the platform rate limit', { platform: this.platform, waitMs });
    await this.sleep(waitMs);
  }

  private async noteRateLimit(headers: Headers, body: unknown): Promise<void> {
    const until = retryTimeOf(headers, body, this.options.clock());
    if (!this.hold || until > this.hold) this.hold = until;
    await this.options.keeper.hold(until);
    this.options.log.warn('platform rate limit', { platform: this.platform, retryAt: until.toISOString() });
  }

  /** One HTTP exchange with retries on network errors and 5xx; a 429 waits (or throws) and retries. */
  private async exchange(request: Request, token: string | undefined): Promise<Response> {
    for (let attempt = 1; ; attempt++) {
      await this.waitForHold();
      let response: globalThis.Response;
      try {
        const isForm = request.body instanceof URLSearchParams;
        response = await fetch(request.url, {
          method: request.method,
          headers: {
            accept: 'application/json',
            ...(request.body === undefined || isForm ? {} : { 'content-type': 'application/json' }),
            ...request.headers,
            ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
          },
          body:
            request.body === undefined
              ? undefined
              : isForm
                ? (request.body as URLSearchParams)
                : JSON.stringify(request.body),
          signal: AbortSignal.timeout(this.timeoutMs),
          redirect: 'manual',
        });
      } catch (error) {
        if (attempt >= networkAttempts) throw new PlatformError(this.platform, 0, request.what);
        this.options.log.warn('platform request failed; retrying', {
          platform: this.platform,
          what: request.what,
          error: (error as Error).name,
        });
        await this.sleep(200 * 2 ** attempt);
        continue;
      }
      const body = await readBody(response);
      if (response.status === 429) {
        await this.noteRateLimit(response.headers, body);
        continue;
      }
      if (response.status >= 500 && attempt < networkAttempts) {
        await this.sleep(200 * 2 ** attempt);
        continue;
      }
      return { status: response.status, body, headers: response.headers };
    }
  }

  /** A call to the token endpoint (no bearer token); a refused grant is GrantRevokedError. */
  async token(request: Request): Promise<unknown> {
    const response = await this.exchange(request, undefined);
    if (response.status >= 200 && response.status < 300) return response.body;
    if (response.status === 400 || response.status === 401) throw new GrantRevokedError(this.platform);
    throw new PlatformError(this.platform, response.status, request.what);
  }

  /**
   * An API call with the grant's access token: refreshed first when about to expire, and once more
   * after a 401 (then the call is retried once). Answers 2xx and the `accept` statuses; others throw.
   */
  async call(
    request: Request,
    refresh: (grant: Grant) => Promise<Grant>,
    accept: number[] = [],
  ): Promise<Response> {
    let { grant, version } = await this.options.keeper.current();
    // past its expiry by our clock: refreshed first (one dying in flight is the 401 path below). Not
    // earlier: Outreach gives one new token per minute and asks clients to use each for its whole life.
    if (Date.parse(grant.expiresAt) <= this.options.clock().getTime())
      ({ grant, version } = await this.options.keeper.refresh(version, refresh));
    let response = await this.exchange(request, grant.accessToken);
    if (response.status === 401) {
      this.options.log.info('access token refused; refreshing', { platform: this.platform });
      ({ grant } = await this.options.keeper.refresh(version, refresh));
      response = await this.exchange(request, grant.accessToken);
      if (response.status === 401) throw new GrantRevokedError(this.platform);
    }
    if ((response.status >= 200 && response.status < 300) || accept.includes(response.status))
      return response;
    throw new PlatformError(this.platform, response.status, request.what);
  }
}

/** A grant from an OAuth token response (access_token, refresh_token, expires_in). */
export function grantOf(body: unknown, now: Date, previous?: Grant): Grant {
  const b = (body ?? {}) as Record<string, unknown>;
  const access = b.access_token;
  if (typeof access !== 'string' || access === '') throw new Error('token response without access_token');
  const refresh = typeof b.refresh_token === 'string' && b.refresh_token !== '' ? b.refresh_token : undefined;
  const expiresIn = typeof b.expires_in === 'number' ? b.expires_in : Number(b.expires_in ?? 7200) || 7200;
  return {
    accessToken: access,
    // a platform that does not rotate keeps the one it gave before
    refreshToken: refresh ?? previous?.refreshToken ?? '',
    expiresAt: new Date(now.getTime() + expiresIn * 1000).toISOString(),
  };
}

/** Where a platform's OAuth token endpoint is and the app's credentials there. */
interface OAuthClient {
  oauthUrl: string;
  clientId: string;
  clientSecret: string;
}

/** The refresh_token grant at `<oauthUrl>/token` (both platforms take the same form; Salesloft rotates). */
export function refreshGrant(
  client: OAuthClient,
  session: PlatformSession,
  now: () => Date,
): (grant: Grant) => Promise<Grant> {
  return async (grant) =>
    grantOf(
      await session.token({
        method: 'POST',
        url: `${client.oauthUrl}/token`,
        what: 'the token refresh',
        body: new URLSearchParams({
          client_id: client.clientId,
          client_secret: client.clientSecret,
          grant_type: 'refresh_token',
          refresh_token: grant.refreshToken,
        }),
      }),
      now(),
      grant,
    );
}
