// The client's HTTP plumbing: a fetch that waits out 429 and 503 answers, and the error every failed
// call throws. Browser-safe: only fetch, Request, Response and timers.

/** A non-2xx answer of the API, with the API's own error text. */
export class MailvetApiError extends Error {
  constructor(
    readonly status: number,
    /** The `error` field of the body, or the body itself when it is not the usual JSON. */
    readonly apiMessage: string,
    readonly body: unknown,
    /** Seconds from a Retry-After header, when the answer had one. */
    readonly retryAfterSeconds?: number,
  ) {
    super(`${status} ${apiMessage}`);
    this.name = 'MailvetApiError';
  }
}

/** Builds the error for a failed answer from its status and (already parsed or raw) body. */
export function apiError(response: Response, body: unknown): MailvetApiError {
  const message =
    typeof body === 'object' && body !== null && typeof (body as { error?: unknown }).error === 'string'
      ? (body as { error: string }).error
      : typeof body === 'string' && body.length > 0
        ? body
        : response.statusText || 'request failed';
  const retryAfter = parseRetryAfter(response.headers.get('retry-after'), Date.now());
  return new MailvetApiError(
    response.status,
    message,
    body,
    retryAfter === undefined ? undefined : Math.ceil(retryAfter / 1000),
  );
}

/** A failed presigned upload or download: S3 answers in XML, so keep its <Message> when there is one. */
export function storageError(status: number, text: string): MailvetApiError {
  const message = /<Message>([^<]*)<\/Message>/.exec(text)?.[1] ?? (text || `HTTP ${status}`);
  return new MailvetApiError(status, message, text);
}

/** Milliseconds to wait from a Retry-After value (delta seconds or an HTTP date), or undefined. */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export interface RetryInfo {
  status: number;
  url: string;
  /** 1 for the first retry. */
  attempt: number;
  waitMs: number;
}

export interface RetryOptions {
  /** Retries after the first answer; 0 turns retrying off. Default 5. */
  maxRetries?: number;
  /** The longest single wait; a longer Retry-After is cut to this. Default 120 000 ms. */
  maxWaitMs?: number;
  /** Told before each wait (the CLI prints it). */
  onRetry?: (info: RetryInfo) => void;
  /** Replaceable for tests. */
  sleep?: (ms: number) => Promise<void>;
}

const retryable = new Set([429, 503]);

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A fetch that answers 429 and 503 by waiting Retry-After (or 1, 2, 4... s without one) and sending
 * the request again, up to maxRetries times; the last answer is returned as it is.
 */
export function retryingFetch(
  base: typeof fetch,
  options: RetryOptions = {},
): (request: Request) => Promise<Response> {
  const maxRetries = options.maxRetries ?? 5;
  const maxWaitMs = options.maxWaitMs ?? 120_000;
  const wait = options.sleep ?? sleep;
  return async (request: Request) => {
    for (let attempt = 1; ; attempt++) {
      const response = await base(request.clone());
      if (!retryable.has(response.status) || attempt > maxRetries) return response;
      const fallback = 1000 * 2 ** (attempt - 1);
      const waitMs = Math.min(
        parseRetryAfter(response.headers.get('retry-after'), Date.now()) ?? fallback,
        maxWaitMs,
      );
      await response.body?.cancel();
      options.onRetry?.({ status: response.status, url: request.url, attempt, waitMs });
      await wait(waitMs);
    }
  };
}
