// Typed errors thrown by domain code. functions/middlewares/api.ts maps them to HTTP in one place;
// domain code never builds HTTP responses.
import { z } from 'zod';

/** Every error response body: `{"error": "<text a person can act on>"}`. */
export const errorBodySchema = z.object({ error: z.string() });

export abstract class AppError extends Error {
  abstract readonly statusCode: number;
  /** Extra response headers, e.g. Retry-After. */
  readonly headers: Record<string, string> = {};
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** 400: the request is malformed or breaks a rule; the message says which. */
export class ValidationError extends AppError {
  readonly statusCode = 400;
}

/** 401: no API key. */
export const missingKeyMessage = 'Missing API key';
export const invalidKeyMessage = 'Invalid API key';
export const rateLimitMessage = 'Rate limit exceeded';
export const unavailableMessage = 'Service temporarily unavailable';
export const internalErrorMessage = 'Internal server error';
export const invalidJsonMessage = 'Invalid JSON body';
/** JSON nested deeper than this is refused before any recursive code (key sorting, metadata size) meets it. */
export const maxJsonDepth = 64;
export const tooDeepJsonMessage = `JSON body must not be nested more than ${maxJsonDepth} levels deep`;

/** The base of an error whose status and text never change: `new MissingKeyError()` takes no argument. */
function fixedError(statusCode: number, message: string) {
  return class extends AppError {
    readonly statusCode = statusCode;
    constructor() {
      super(message);
    }
  };
}

export class MissingKeyError extends fixedError(401, missingKeyMessage) {}

/** 401: a bearer token that is not a live token of the user pool's console client (docs/people.md). */
export const invalidTokenMessage = 'Invalid token';
export class InvalidTokenError extends fixedError(401, invalidTokenMessage) {}

/** 403: unknown or revoked API key. */
export class InvalidKeyError extends fixedError(403, invalidKeyMessage) {}

/** 402: the company has neither monthly quota nor credits left (a fixed text, docs/api.md). */
export const quotaExceededMessage = 'Validation quota exceeded';

export class QuotaExceededError extends fixedError(402, quotaExceededMessage) {}

/** 403: the key's creator lacks the permission a write needs. */
export class ForbiddenError extends AppError {
  readonly statusCode = 403;
}

export class NotFoundError extends AppError {
  readonly statusCode = 404;
}

export class ConflictError extends AppError {
  readonly statusCode = 409;
}

/** 410: the thing existed but is gone for good (e.g. results past their retention). */
export class GoneError extends AppError {
  readonly statusCode = 410;
}

/** 422: the request is well-formed but cannot be honoured as sent (e.g. an Idempotency-Key reused). */
export class UnprocessableError extends AppError {
  readonly statusCode = 422;
}

/** 429 with Retry-After. */
export class TooManyRequestsError extends AppError {
  readonly statusCode = 429;
  constructor(message: string, retryAfterSeconds: number) {
    super(message);
    this.headers['retry-after'] = String(retryAfterSeconds);
  }
}

export class RateLimitError extends TooManyRequestsError {
  constructor() {
    super(rateLimitMessage, 1);
  }
}

/** 503 with Retry-After: a dependency stayed throttled or unavailable after the SDK's retries. */
export class ServiceUnavailableError extends AppError {
  readonly statusCode = 503;
  constructor(retryAfterSeconds = 2) {
    super(unavailableMessage);
    this.headers['retry-after'] = String(retryAfterSeconds);
  }
}

const throttlingNames = new Set([
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'ServiceUnavailable',
  'ServiceUnavailableException',
  'InternalServerError',
  'SlowDown',
  'TooManyRequestsException',
  'LimitExceededException',
]);

/** True for an AWS SDK error that means "busy, try later" (after the SDK's own retries gave up). */
export function isThrottlingError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const meta = (error as { $metadata?: { httpStatusCode?: number }; $retryable?: { throttling?: boolean } })
    .$metadata;
  if (throttlingNames.has(error.name)) return true;
  if ((error as { $retryable?: { throttling?: boolean } }).$retryable?.throttling) return true;
  return meta?.httpStatusCode === 503;
}

/** The protocols of a connected mailbox's two servers. */
export type MailboxProtocol = 'IMAP' | 'SMTP';

/**
 * A mailbox's server refused the login (IMAP or SMTP submission): a credentials problem. The message
 * carries the server's own words, never the password.
 */
export class MailboxLoginError extends Error {
  constructor(
    readonly protocol: MailboxProtocol,
    readonly serverText: string,
  ) {
    super(`${protocol} login failed: ${serverText}`);
    this.name = 'MailboxLoginError';
  }
}

/** A mailbox's server could not be reached or spoke no usable protocol (network, TLS, timeout): not a credentials problem. */
export class MailboxUnreachableError extends Error {
  constructor(
    readonly protocol: MailboxProtocol,
    readonly host: string,
    readonly port: number,
    readonly reason: string,
  ) {
    super(`${protocol} server ${host}:${port} unreachable: ${reason}`);
    this.name = 'MailboxUnreachableError';
  }
}
