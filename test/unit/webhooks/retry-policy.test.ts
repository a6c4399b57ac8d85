import {
  classify,
  decide,
  jitterRatio,
  maxAttempts,
  maxDelaySeconds,
  retryDelaySeconds,
  type AttemptResult,
} from '../../../functions/domain/webhooks/retry-policy';

const nominal = () => 0.5;
const lowest = () => 0;
const highest = () => 0.999999;
const retries = [1, 2, 3, 4, 5];

describe('retryDelaySeconds', () => {
  it('waits 1, 2, 4, 8 and 16 minutes with the default base and no jitter', () => {
    expect(retries.map((n) => retryDelaySeconds(n, 60, nominal))).toEqual([60, 120, 240, 480, 960]);
  });

  it('keeps every jittered wait within ±20% of the nominal one', () => {
    for (const n of retries) {
      const base = 60 * 2 ** (n - 1);
      expect(retryDelaySeconds(n, 60, lowest)).toBe(Math.round(base * (1 - jitterRatio)));
      expect(retryDelaySeconds(n, 60, highest)).toBe(Math.round(base * (1 + jitterRatio)));
      for (let i = 0; i < 200; i += 1) {
        const delay = retryDelaySeconds(n, 60);
        expect(delay).toBeGreaterThanOrEqual(Math.floor(base * (1 - jitterRatio)));
        expect(delay).toBeLessThanOrEqual(Math.ceil(base * (1 + jitterRatio)));
      }
    }
  });

  it('fits all 5 retries, each after a full 10 s timeout, within one hour at the default base', () => {
    const longestWaits = retries.map((n) => retryDelaySeconds(n, 60, highest));
    const attemptsAtTimeout = maxAttempts * 10;
    expect(longestWaits.reduce((a, b) => a + b, 0) + attemptsAtTimeout).toBeLessThan(3600);
  });

  it('spreads receivers that failed together', () => {
    const delays = new Set(Array.from({ length: 50 }, () => retryDelaySeconds(3, 60)));
    expect(delays.size).toBeGreaterThan(5);
  });

  it('scales with WEBHOOK_RETRY_BASE_SECONDS', () => {
    expect(retries.map((n) => retryDelaySeconds(n, 1, nominal))).toEqual([1, 2, 4, 8, 16]);
    expect(retryDelaySeconds(1, 0.01, highest)).toBe(0);
  });

  it('never exceeds the longest SQS visibility timeout', () => {
    expect(retryDelaySeconds(5, 10_000, highest)).toBe(maxDelaySeconds);
  });
});

describe('classify', () => {
  const response = (statusCode: number): AttemptResult => ({ kind: 'response', statusCode });

  it.each([200, 201, 202, 204, 299])('acknowledges %i', (code) => {
    expect(classify(response(code))).toBe('delivered');
  });

  it.each([500, 502, 503, 504, 599, 429])('retries %i', (code) => {
    expect(classify(response(code))).toBe('retryable');
  });

  it.each([400, 401, 403, 404, 410, 413, 422, 301, 302, 307, 308, 100])('gives up on %i', (code) => {
    expect(classify(response(code))).toBe('final');
  });

  it('retries timeouts and connection errors', () => {
    expect(classify({ kind: 'timeout', error: 'x' })).toBe('retryable');
    expect(classify({ kind: 'network', error: 'ECONNREFUSED' })).toBe('retryable');
  });

  it('never retries a refused address', () => {
    expect(classify({ kind: 'refused', error: 'x' })).toBe('final');
  });
});

describe('decide', () => {
  it('retries a retryable failure before the sixth attempt, after that attempt backoff', () => {
    expect(decide('retryable', 1, 60, nominal)).toEqual({ action: 'retry', delaySeconds: 60 });
    expect(decide('retryable', 5, 60, nominal)).toEqual({ action: 'retry', delaySeconds: 960 });
  });

  it('gives up after the sixth attempt (the first and 5 retries)', () => {
    expect(maxAttempts).toBe(6);
    expect(decide('retryable', 6, 60, nominal)).toEqual({ action: 'acknowledge' });
  });

  it('acknowledges deliveries and final failures at once', () => {
    expect(decide('delivered', 1, 60)).toEqual({ action: 'acknowledge' });
    expect(decide('final', 1, 60)).toEqual({ action: 'acknowledge' });
  });
});
