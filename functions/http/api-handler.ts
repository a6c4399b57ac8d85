// Every API route is one middy pipeline: request log, sorted-JSON writer, publishable-key CORS,
// authentication, rate limit, JSON body, then the route; errors are mapped to HTTP by the
// last-registered middleware and nowhere else, and a 5xx body never carries internals. The middlewares live in functions/middlewares/api.ts.
import middy, { type MiddyfiedHandler } from '@middy/core';
import type { Context } from 'aws-lambda';
import type { Principal } from '../domain/accounts/accounts';
import type { Logger } from '../log';
import { authentication, publishableCors, rateLimit } from '../middlewares/auth';
import {
  errorMapping,
  jsonBody,
  requestLog,
  sortedJsonResponse,
  type ApiContext,
  type ApiEvent,
  type ApiResponse,
  type ApiResult,
} from '../middlewares/api';

export type { ApiEvent, ApiResponse, ApiResult };

/** What a route sees: the caller and the parsed parts of the request. */
export interface ApiRequest {
  principal: Principal;
  /** Parsed JSON body; undefined when the request had none. */
  body: unknown;
  pathParameters: Record<string, string>;
  query: Record<string, string>;
  headers: Record<string, string>;
  requestId: string;
  log: Logger;
  /** Milliseconds left before the function times out. */
  remainingMs(): number;
}

export type Route = (request: ApiRequest) => Promise<ApiResponse>;

function routeRequest(event: ApiEvent, context: ApiContext): ApiRequest {
  if (!context.principal) throw new Error('an API route runs after authentication()');
  return {
    principal: context.principal,
    body: context.body,
    pathParameters: (event.pathParameters ?? {}) as Record<string, string>,
    query: (event.queryStringParameters ?? {}) as Record<string, string>,
    headers: context.headers,
    requestId: context.requestId,
    log: context.log,
    remainingMs: () => context.getRemainingTimeInMillis(),
  };
}

/** What a public route (no API key or token: accepting an invite, a password reset) sees. */
export type PublicRequest = Omit<ApiRequest, 'principal'>;
export type PublicRoute = (request: PublicRequest) => Promise<ApiResponse>;

/**
 * The Lambda handler of a route anyone may call (the pages a link opens, before a person can sign in):
 * the same pipeline without authentication and the company's rate limit (API Gateway's stage limit
 * holds); what the route does must be safe to ask for by anyone, e.g. it needs a one-time token.
 */
export function publicApiHandler(route: PublicRoute): MiddyfiedHandler<ApiEvent, ApiResult, Error, Context> {
  const handler = middy<ApiEvent, ApiResult, Error, ApiContext>()
    .use(requestLog())
    .use(sortedJsonResponse())
    .use(jsonBody())
    .use(errorMapping())
    .handler(async (event, context) => {
      const { principal: _none, ...request } = routeRequest(event, { ...context, principal: anonymous });
      return (await route(request)) as ApiResult;
    });
  return handler as unknown as MiddyfiedHandler<ApiEvent, ApiResult, Error, Context>;
}

const anonymous: Principal = { companyId: '', userId: '', userEmail: '', keyId: '' };

/** The Lambda handler of an authenticated API route: export it as `handler` from the route's file. */
export function apiHandler(route: Route): MiddyfiedHandler<ApiEvent, ApiResult, Error, Context> {
  const handler = middy<ApiEvent, ApiResult, Error, ApiContext>()
    .use(requestLog())
    .use(sortedJsonResponse())
    .use(publishableCors())
    .use(authentication())
    .use(rateLimit())
    .use(jsonBody())
    .use(errorMapping())
    // The route's ApiResponse becomes the ApiResult in sortedJsonResponse().
    .handler(async (event, context) => (await route(routeRequest(event, context))) as ApiResult);
  // The middlewares fill ApiContext's extra fields, so callers pass a plain Lambda context.
  return handler as unknown as MiddyfiedHandler<ApiEvent, ApiResult, Error, Context>;
}
