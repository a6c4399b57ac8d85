// The middlewares that need the table: the API key or a person's token, then the company's rate limit;
// for a publishable key also its origin lock, CORS headers and per-visitor limits.
import { verifyPersonToken } from '../clients/person-tokens';
import { authenticate, type Principal } from '../domain/accounts/accounts';
import { authenticatePerson } from '../domain/people/sign-in';
import {
  checkPublishableCall,
  consumePublishableLimits,
  originHasLiveKey,
  publishableRouteKey,
} from '../domain/accounts/publishable';
import { consumeRateLimit } from '../domain/rate-limit';
import { InvalidTokenError, invalidKeyMessage } from '../errors';
import { json } from '../http/response';
import { settings } from '../settings';
import type { ApiMiddleware, ApiResponse } from './api';

/**
 * `Authorization: Bearer <a person's access token>` (docs/people.md; 401 `Invalid token` for a bad,
 * expired or foreign one), else `x-api-key` (401 missing, 403 unknown or revoked): both come to a
 * principal of one user of one company.
 */
async function principalOf(headers: Record<string, string>): Promise<Principal> {
  const { AUTH_CACHE_SECONDS } = settings();
  const authorization = headers.authorization;
  if (authorization !== undefined && headers['x-api-key'] === undefined) {
    const match = /^Bearer\s+([A-Za-z0-9_\-.=]+)\s*$/i.exec(authorization);
    if (!match) throw new InvalidTokenError();
    const { sub } = await verifyPersonToken(match[1]!);
    return authenticatePerson(sub, AUTH_CACHE_SECONDS);
  }
  return authenticate(headers['x-api-key'], AUTH_CACHE_SECONDS);
}

export function authentication(): ApiMiddleware {
  return {
    before: async ({ event, context }) => {
      const principal = await principalOf(context.headers);
      // A publishable key works for one route from one origin; anything else is as if the key were unknown.
      if (principal.publishableOrigin)
        checkPublishableCall(principal.publishableOrigin, event.routeKey, context.headers.origin);
      context.principal = principal;
      context.log = context.log.child({
        companyId: principal.companyId,
        ...(principal.personId ? { personId: principal.personId } : { keyId: principal.keyId }),
      });
    },
  };
}

/**
 * The company's requests-per-second limit (429, Retry-After: 1); a publishable key is also held to its
 * per-IP and per-day limits. Needs authentication before it.
 */
export function rateLimit(): ApiMiddleware {
  return {
    before: async ({ event, context }) => {
      if (!context.principal) throw new Error('rateLimit() needs authentication() before it');
      if (context.principal.publishableOrigin) {
        const { PUBLISHABLE_PER_IP_PER_MINUTE, PUBLISHABLE_DAILY_CAP } = settings();
        await consumePublishableLimits(context.principal.keyId, event.requestContext?.http?.sourceIp ?? '', {
          perIpPerMinute: PUBLISHABLE_PER_IP_PER_MINUTE,
          perKeyPerDay: PUBLISHABLE_DAILY_CAP,
        });
      }
      await consumeRateLimit(context.principal.companyId, settings().RATE_LIMIT_PER_SECOND);
    },
  };
}

const preflightHeaders = {
  'access-control-allow-methods': 'POST',
  'access-control-allow-headers': 'content-type, x-api-key',
  'access-control-max-age': '600',
};

/**
 * CORS for publishable keys, which browsers on other sites use: a preflight (OPTIONS) of the widget's
 * route is answered for an origin that a live publishable key was made for, 403 otherwise; a response to
 * a publishable key allows its own origin alone. Register it before authentication() (a preflight has
 * no key) and after the response writer (it adds headers to the route's response).
 */
export function publishableCors(): ApiMiddleware {
  const allowOrigin = (request: Parameters<NonNullable<ApiMiddleware['after']>>[0]) => {
    const origin = request.context.principal?.publishableOrigin;
    const response = request.response as ApiResponse | null;
    if (!origin || !response) return;
    response.headers = {
      ...response.headers,
      'access-control-allow-origin': origin,
      'access-control-expose-headers': 'retry-after',
      vary: 'origin',
    };
  };
  return {
    before: async ({ event, context }) => {
      if (event.requestContext?.http?.method !== 'OPTIONS') return;
      const origin = context.headers.origin;
      const [, path] = publishableRouteKey.split(' ');
      if (event.rawPath === path && (await originHasLiveKey(origin)))
        return json(204, undefined, {
          ...preflightHeaders,
          'access-control-allow-origin': origin!,
          vary: 'origin',
        });
      return json(403, { error: invalidKeyMessage });
    },
    after: allowOrigin,
    onError: allowOrigin,
  };
}
