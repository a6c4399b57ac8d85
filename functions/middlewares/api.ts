// The HTTP middlewares of the API, one concern each (the not-found route uses them too); authentication
// and the rate limit are in ./auth.ts. functions/http/api-handler.ts composes them; a route only sees the finished ApiRequest and returns an ApiResponse.
import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { Principal } from '../domain/accounts/accounts';
import {
  AppError,
  internalErrorMessage,
  invalidJsonMessage,
  isThrottlingError,
  maxJsonDepth,
  tooDeepJsonMessage,
  ServiceUnavailableError,
  ValidationError,
} from '../errors';
import { json } from '../http/response';
import { nestedDeeperThan } from '../json';
import { Logger, logger } from '../log';
import { withoutEmails } from '../privacy';
import { flushCommandMetrics } from '../store/dynamodb';

export type ApiEvent = APIGatewayProxyEventV2;
export type ApiResult = APIGatewayProxyStructuredResultV2;

/** What a route returns: a status, an optional JSON body and extra headers. */
export interface ApiResponse {
  statusCode: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** The Lambda context as the API middlewares fill it, in their order. */
export interface ApiContext extends Context {
  requestId: string;
  log: Logger;
  /** Request headers, names lower-cased. */
  headers: Record<string, string>;
  principal?: Principal;
  /** Parsed JSON body; undefined when the request had none. */
  body?: unknown;
}

/**
 * Until sortedJsonResponse() writes it, `request.response` holds the route's ApiResponse (body not yet
 * serialised); middy types it as the final ApiResult.
 */
export type ApiMiddleware = MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext>;
type ApiMiddyRequest = Request<ApiEvent, ApiResult, Error, ApiContext>;

function lowerCaseHeaders(headers: ApiEvent['headers'] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {}))
    if (value !== undefined) out[name.toLowerCase()] = value;
  return out;
}

/** Request id, headers and a request logger first; one "request done" line with the status last. */
export function requestLog(): ApiMiddleware {
  const done = ({ context, response }: ApiMiddyRequest) => {
    context.log?.info('request done', { statusCode: response?.statusCode });
    // the invocation's DynamoDB command counts, before Lambda freezes the process
    flushCommandMetrics();
  };
  return {
    before: ({ event, context }) => {
      context.requestId = event.requestContext?.requestId ?? context.awsRequestId;
      context.headers = lowerCaseHeaders(event.headers);
      context.log = logger.child({
        requestId: context.requestId,
        // a caller may put an address in a path (GET /v1/users/ada@acme.example): never logged
        path: event.rawPath === undefined ? undefined : withoutEmails(event.rawPath),
        method: event.requestContext?.http?.method,
      });
    },
    after: done,
    onError: done,
  };
}

/** The JSON body, or undefined when empty; 400 "Invalid JSON body" when it does not parse. */
export function jsonBody(): ApiMiddleware {
  return {
    before: ({ event, context }) => {
      if (event.body === undefined || event.body === null || event.body === '') return;
      const text = event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        throw new ValidationError(invalidJsonMessage);
      }
      // Recursive code (sorting keys, measuring metadata) must never meet a body deep enough to overflow it.
      if (nestedDeeperThan(body, maxJsonDepth)) throw new ValidationError(tooDeepJsonMessage);
      context.body = body;
    },
  };
}

/** Writes the route's response as JSON with keys sorted at every level (errors included). */
export function sortedJsonResponse(): ApiMiddleware {
  const write = (request: ApiMiddyRequest) => {
    const response = request.response as ApiResponse | null;
    if (response) request.response = json(response.statusCode, response.body, response.headers);
  };
  return { after: write, onError: write };
}

/** Any error as an ApiResponse: typed errors keep their status and message, the rest become 500/503. */
function errorResponse(error: unknown, log: Logger): ApiResponse {
  if (error instanceof AppError) {
    // a throttled table is load, not a bug: send() already turned it into a 503 with Retry-After
    if (error instanceof ServiceUnavailableError && isThrottlingError(error.cause))
      log.warn('dependency throttled', { error: (error.cause as Error).name });
    else if (error.statusCode >= 500) log.error('request failed', error);
    return { statusCode: error.statusCode, body: { error: error.message }, headers: error.headers };
  }
  if (isThrottlingError(error)) {
    const unavailable = new ServiceUnavailableError();
    log.warn('dependency throttled after retries', { error: (error as Error).name });
    return {
      statusCode: unavailable.statusCode,
      body: { error: unavailable.message },
      headers: unavailable.headers,
    };
  }
  log.error('unhandled error', error);
  return { statusCode: 500, body: { error: internalErrorMessage } };
}

/**
 * Errors to HTTP, in this one place. Register it last: middy runs onError handlers last-registered
 * first, so it answers before the response writer and the request log see the result.
 */
export function errorMapping(): ApiMiddleware {
  return {
    onError: (request) => {
      request.response = errorResponse(request.error, request.context.log ?? logger) as ApiResult;
    },
  };
}
