// What a platform adapter tells its use cases when a call cannot go through: typed, with no token,
// no request URL and no response body in the text (those may carry secrets or addresses).

/** The grant is revoked or expired (a refresh was refused): the admin has to connect again. */
export class GrantRevokedError extends Error {
  constructor(readonly platform: string) {
    super(`The ${platform} grant was revoked or has expired: connect ${platform} again`);
    this.name = 'GrantRevokedError';
  }
}

/** The platform asked for a pause (429): nothing may be sent to it for this grant before `retryAt`. */
export class RateLimitedError extends Error {
  constructor(
    readonly platform: string,
    readonly retryAt: Date,
  ) {
    super(`${platform} rate limit: retry after ${retryAt.toISOString()}`);
    this.name = 'RateLimitedError';
  }
}

/** Any other answer the adapter cannot use (a 4xx, 5xx after retries, a malformed body). */
export class PlatformError extends Error {
  constructor(
    readonly platform: string,
    readonly status: number,
    what: string,
  ) {
    super(`${platform} answered ${status} to ${what}`);
    this.name = 'PlatformError';
  }
}
