// The adapter every API route shares: authenticate the key, apply the company's rate limit, parse the
// JSON body, call the route, and write the response with sorted keys. Errors are mapped to HTTP here
// and nowhere else; a 5xx body never carries internals.
import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { authenticate, type Principal } from '../domain/accounts/accounts';
import { consumeRateLimit } from '../domain/rate-limit';
import { AppError, isThrottlingError, ServiceUnavailableError, ValidationError } from '../errors';
import { Logger, logger } from '../log';
import { settings } from '../settings';
import { nestedDeeperThan } from '../json';
import { json } from './response';

export type ApiEvent = APIGatewayProxyEventV2;
export type ApiResult = APIGatewayProxyStructuredResultV2;

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
}

/** What a route returns: a status, an optional JSON body and extra headers. */
export interface ApiResponse {
  statusCode: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export type Route = (request: ApiRequest) => Promise<ApiResponse>;

export { json };

function lowerCaseHeaders(headers: ApiEvent['headers'] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {}))
    if (value !== undefined) out[name.toLowerCase()] = value;
  return out;
}

/** The JSON body, or undefined when empty; 400 "Invalid JSON body" when it does not parse. */
export function parseJsonBody(event: Pick<ApiEvent, 'body' | 'isBase64Encoded'>): unknown {
  if (event.body === undefined || event.body === null || event.body === '') return undefined;
  const text = event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ValidationError('Invalid JSON body');
  }
  // Recursive code (sorting keys, measuring metadata) must never meet a body deep enough to overflow it.
  if (nestedDeeperThan(body, maxJsonDepth))
    throw new ValidationError(`JSON body must not be nested more than ${maxJsonDepth} levels deep`);
  return body;
}

const maxJsonDepth = 64;

/** Maps any error to a response: typed errors keep their status and message, the rest become 500/503. */
export function errorResponse(error: unknown, log: Logger): ApiResult {
  if (error instanceof AppError) {
    if (error.statusCode >= 500) log.error('request failed', error);
    return json(error.statusCode, { error: error.message }, error.headers);
  }
  if (isThrottlingError(error)) {
    const unavailable = new ServiceUnavailableError();
    log.warn('dependency throttled after retries', { error: (error as Error).name });
    return json(unavailable.statusCode, { error: unavailable.message }, unavailable.headers);
  }
  log.error('unhandled error', error);
  return json(500, { error: 'Internal server error' });
}

/** Runs a route with authentication, rate limiting and the shared conventions. */
export async function runRoute(
  route: Route,
  event: ApiEvent,
  context: Pick<Context, 'awsRequestId'>,
): Promise<ApiResult> {
  const requestId = event.requestContext?.requestId ?? context.awsRequestId;
  let log = logger.child({ requestId, path: event.rawPath, method: event.requestContext?.http?.method });
  try {
    const headers = lowerCaseHeaders(event.headers);
    const principal = await authenticate(headers['x-api-key'], settings().AUTH_CACHE_SECONDS);
    log = log.child({ companyId: principal.companyId, keyId: principal.keyId });
    await consumeRateLimit(principal.companyId, settings().RATE_LIMIT_PER_SECOND);
    const request: ApiRequest = {
      principal,
      body: parseJsonBody(event),
      pathParameters: (event.pathParameters ?? {}) as Record<string, string>,
      query: (event.queryStringParameters ?? {}) as Record<string, string>,
      headers,
      requestId,
      log,
    };
    const response = await route(request);
    log.info('request done', { statusCode: response.statusCode });
    return json(response.statusCode, response.body, response.headers);
  } catch (error) {
    const result = errorResponse(error, log);
    log.info('request done', { statusCode: result.statusCode });
    return result;
  }
}

/** The Lambda handler of an API route: export it as `handler` from the route's file. */
export function apiHandler(route: Route) {
  return middy<ApiEvent, ApiResult>().handler((event, context) => runRoute(route, event, context));
}
