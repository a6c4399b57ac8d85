// When a delivery attempt counts as delivered, worth retrying or final, and how long to wait before
// the next one. Pure functions: the queue (ChangeMessageVisibility) does the waiting.

/** The first attempt and 5 retries (docs/api.md, "Completion webhook"). */
export const maxAttempts = 6;

/** Each wait varies by up to this fraction either way, so receivers that failed together are not retried together. */
export const jitterRatio = 0.2;

/** SQS's longest visibility timeout. */
export const maxDelaySeconds = 43_200;

/**
 * Seconds to wait after failed attempt `attempt` (1-based): base * 2^(attempt-1), ± jitterRatio.
 * With the default base of 60 s: 1, 2, 4, 8, 16 minutes, at most 37.2 minutes in all.
 * `random` returns [0, 1); 0.5 gives the nominal wait.
 */
export function retryDelaySeconds(
  attempt: number,
  baseSeconds: number,
  random: () => number = Math.random,
): number {
  const nominal = baseSeconds * 2 ** (Math.max(1, attempt) - 1);
  const jittered = nominal * (1 + jitterRatio * (2 * random() - 1));
  return Math.min(maxDelaySeconds, Math.max(0, Math.round(jittered)));
}

/** How one attempt ended, before the retry budget is applied. */
export type AttemptResult =
  | { kind: 'response'; statusCode: number }
  | { kind: 'timeout'; error: string }
  | { kind: 'network'; error: string }
  | { kind: 'refused'; error: string };

export type Verdict = 'delivered' | 'retryable' | 'final';

/**
 * 2xx acknowledges. 5xx, 429, timeouts and connection errors may succeed later. Any other 4xx, any 3xx
 * (redirects are never followed) and a refused address will not, so they are not retried.
 */
export function classify(result: AttemptResult): Verdict {
  switch (result.kind) {
    case 'response': {
      const code = result.statusCode;
      if (code >= 200 && code < 300) return 'delivered';
      if (code >= 500 || code === 429) return 'retryable';
      return 'final';
    }
    case 'timeout':
    case 'network':
      return 'retryable';
    case 'refused':
      return 'final';
  }
}

export type Decision = { action: 'acknowledge' } | { action: 'retry'; delaySeconds: number };

/** What to do with the message after attempt `attempt` ended with `verdict`. */
export function decide(
  verdict: Verdict,
  attempt: number,
  baseSeconds: number,
  random: () => number = Math.random,
): Decision {
  if (verdict === 'retryable' && attempt < maxAttempts) {
    return { action: 'retry', delaySeconds: retryDelaySeconds(attempt, baseSeconds, random) };
  }
  return { action: 'acknowledge' };
}
