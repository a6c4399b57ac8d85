// The middlewares that need the table: the API key, then the company's rate limit.
import { authenticate } from '../domain/accounts/accounts';
import { consumeRateLimit } from '../domain/rate-limit';
import { settings } from '../settings';
import type { ApiMiddleware } from './api';

/** The `x-api-key` header names a live key (401 missing, 403 unknown or revoked). */
export function authentication(): ApiMiddleware {
  return {
    before: async ({ context }) => {
      const principal = await authenticate(context.headers['x-api-key'], settings().AUTH_CACHE_SECONDS);
      context.principal = principal;
      context.log = context.log.child({ companyId: principal.companyId, keyId: principal.keyId });
    },
  };
}

/** The company's requests-per-second limit (429, Retry-After: 1). Needs authentication before it. */
export function rateLimit(): ApiMiddleware {
  return {
    before: async ({ context }) => {
      if (!context.principal) throw new Error('rateLimit() needs authentication() before it');
      await consumeRateLimit(context.principal.companyId, settings().RATE_LIMIT_PER_SECOND);
    },
  };
}
