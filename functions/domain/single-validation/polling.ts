// What a client is told while a request is in progress, and when a pending request counts as failed.
import { z } from 'zod';
import { settings } from '../../settings';
import { queueByName } from '../../wiring';

/** The 202 body of the sync (over budget), async and polling endpoints. */
export const inProgressSchema = z.object({
  pollUrl: z.string().describe('Relative to the API origin: GET it for the result'),
  requestId: z.string(),
  retryAfter: z.number().int().positive().describe('Seconds until a poll is worth it (also Retry-After)'),
});
export type InProgress = z.infer<typeof inProgressSchema>;

/**
 * Relative to the API's origin: correct behind any host or custom domain the client called, and
 * never built from a Host header a caller controls. Clients resolve it against the URL they used.
 */
const pollUrlOf = (requestId: string) => `/v1/email/validate/${requestId}`;

/** Seconds until a poll is worth it: a DNS-only verdict takes well under a second, an SMTP probe more. */
function retryAfterSeconds(): number {
  return settings().SMTP_PROBE ? 5 : 1;
}

export function inProgress(requestId: string): InProgress {
  return { pollUrl: pollUrlOf(requestId), requestId, retryAfter: retryAfterSeconds() };
}

/**
 * A request still pending this long after it was created will not complete: every delivery of its
 * message (visibility timeout x receives) is long over, with margin for a queue backlog. Polling then
 * answers 500, and the queue consumer fails it instead of completing it, so a 500 is final.
 */
function pendingLimitSeconds(): number {
  const queue = queueByName('validations');
  return Math.max(3600, 2 * queue.visibilityTimeoutSeconds * queue.maxReceiveCount);
}

export function isOverdue(createdAt: string, now: Date): boolean {
  return now.getTime() - new Date(createdAt).getTime() > pendingLimitSeconds() * 1000;
}

export const FAILED_MESSAGE = 'Validation failed; submit the address again';
export const OVERDUE_MESSAGE = 'Validation did not complete in time; submit the address again';
