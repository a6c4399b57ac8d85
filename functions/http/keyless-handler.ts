// The pipeline of the routes a browser or a platform calls without an API key (the OAuth callback, the
// platforms' webhooks): the request log, the sorted-JSON writer and the one error mapping, but no
// authentication, rate limit or JSON parsing (a webhook's signature is over its raw bytes).
import middy, { type MiddyfiedHandler } from '@middy/core';
import type { Context } from 'aws-lambda';
import type { Logger } from '../log';
import {
  errorMapping,
  requestLog,
  sortedJsonResponse,
  type ApiContext,
  type ApiEvent,
  type ApiResponse,
  type ApiResult,
} from '../middlewares/api';

export interface KeylessRequest {
  /** The raw body as sent (decoded from base64 when API Gateway encoded it). */
  rawBody: string;
  pathParameters: Record<string, string>;
  query: Record<string, string>;
  /** Names lower-cased. */
  headers: Record<string, string>;
  /** `https://host` (or `http://` on a loopback host): the address the API was reached at. */
  reachedAt: string;
  log: Logger;
}

export type KeylessRoute = (request: KeylessRequest) => Promise<ApiResponse>;

/** The origin a request reached the API at: its Host, over the scheme the proxy says (https unless loopback). */
export function reachedAtOf(headers: Record<string, string>, domainName?: string): string {
  const host = headers.host ?? domainName ?? 'localhost';
  const loopback = /^(localhost|127\.[\d.]+|\[::1\])(:\d+)?$/i.test(host);
  const proto = headers['x-forwarded-proto']?.split(',')[0]?.trim() || (loopback ? 'http' : 'https');
  return `${proto}://${host}`;
}

export function keylessHandler(route: KeylessRoute): MiddyfiedHandler<ApiEvent, ApiResult, Error, Context> {
  const handler = middy<ApiEvent, ApiResult, Error, ApiContext>()
    .use(requestLog())
    .use(sortedJsonResponse())
    .use(errorMapping())
    .handler(
      async (event, context) =>
        (await route({
          rawBody:
            event.body === undefined
              ? ''
              : event.isBase64Encoded
                ? Buffer.from(event.body, 'base64').toString('utf8')
                : event.body,
          pathParameters: (event.pathParameters ?? {}) as Record<string, string>,
          query: (event.queryStringParameters ?? {}) as Record<string, string>,
          headers: context.headers,
          reachedAt: reachedAtOf(context.headers, event.requestContext?.domainName),
          log: context.log,
        })) as ApiResult,
    );
  return handler as unknown as MiddyfiedHandler<ApiEvent, ApiResult, Error, Context>;
}
