// GET /v1/email/validate-file/{jobId}/webhook-deliveries: the completion webhook's attempt records as
// the API shows them, oldest first.
import { z } from 'zod';
import { NotFoundError } from '../../errors';
import { readAttempts, type AttemptRecord } from '../../store/webhook-attempts';

const webhookDeliverySchema = z.object({
  attempt: z.number().int().positive().describe('1 for the first delivery, then each retry'),
  at: z.string().describe('ISO 8601 time the attempt started'),
  durationMs: z.number().int().nonnegative().nullable().describe('How long the attempt took'),
  error: z.string().nullable().describe('Why it did not count as delivered (null when it did)'),
  nextRetryAt: z.string().nullable().describe('ISO 8601 time of the next attempt; null when none follows'),
  outcome: z.enum(['delivered', 'retry', 'failed', 'refused']),
  statusCode: z.number().int().nullable().describe("The receiver's HTTP status; null when none came back"),
});

export const webhookDeliveriesSchema = z.object({
  deliveries: z.array(webhookDeliverySchema),
  jobId: z.string(),
  webhookStatus: z
    .enum(['delivered', 'retrying', 'failed'])
    .nullable()
    .describe('null until the first attempt (or for a job without callbackUrl)'),
});
export type WebhookDeliveries = z.infer<typeof webhookDeliveriesSchema>;

function delivery(record: AttemptRecord): WebhookDeliveries['deliveries'][number] {
  return {
    attempt: record.attempt,
    at: record.at,
    durationMs: record.durationMs ?? null,
    error: record.error ?? null,
    nextRetryAt: record.nextAttemptAt ?? null,
    outcome: record.outcome,
    statusCode: record.statusCode ?? null,
  };
}

export async function listWebhookDeliveries(
  companyId: string,
  jobId: string,
  notFoundMessage: string,
): Promise<WebhookDeliveries> {
  const found = /^[0-9a-f-]{36}$/i.test(jobId) ? await readAttempts({ companyId, jobId }) : undefined;
  if (!found) throw new NotFoundError(notFoundMessage);
  return { deliveries: found.attempts.map(delivery), jobId, webhookStatus: found.status ?? null };
}
