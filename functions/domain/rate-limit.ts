// Per-company requests-per-second limit over every API route: one counter per company and second
// (functions/store/rate-counters.ts); past the limit the request is refused with 429.
import { systemClock, type Clock } from '../clock';
import { RateLimitError } from '../errors';
import { countRequest } from '../store/rate-counters';
import { epochSeconds } from '../store/table';

/** Counts one request for the company in the current second; throws RateLimitError past the limit. */
export async function consumeRateLimit(
  companyId: string,
  limitPerSecond: number,
  clock: Clock = systemClock,
): Promise<void> {
  const now = clock();
  if (!(await countRequest(companyId, epochSeconds(now), limitPerSecond))) throw new RateLimitError();
}
