// The webhooks queue message: what the bulk pipeline enqueues when a job with a callbackUrl completes.
import { z } from 'zod';

/** The completion webhook body (fixed, docs/api.md): exactly these five keys, sent sorted. */
const completionPayloadSchema = z.object({
  event: z.literal('bulk_validation.completed'),
  jobId: z.string().min(1),
  statistics: z.record(z.string(), z.number().int().nonnegative()),
  status: z.literal('completed'),
  totalEmails: z.number().int().nonnegative(),
});
export type CompletionPayload = z.infer<typeof completionPayloadSchema>;

export const webhookMessageSchema = z.object({
  /** Validated as a URL at delivery, where a bad one is recorded as refused rather than dropped. */
  callbackUrl: z.string().min(1),
  companyId: z.string().min(1),
  jobId: z.string().min(1),
  payload: completionPayloadSchema,
  /** The Standard Webhooks `webhook-id`: fixed when the job completes, so every retry carries the same. */
  webhookId: z.string().min(1),
});
export type WebhookMessage = z.infer<typeof webhookMessageSchema>;

/** Enough of a broken message to record the failure on its job, when it names one. */
const jobRefSchema = z.object({ companyId: z.string().min(1), jobId: z.string().min(1) });

export type ParsedMessage =
  | { ok: true; message: WebhookMessage }
  | { ok: false; error: string; job?: { companyId: string; jobId: string } };

/** Parses a queue message body; never throws (a malformed message is recorded and acknowledged). */
export function parseWebhookMessage(body: string): ParsedMessage {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { ok: false, error: 'Malformed webhook message: body is not JSON' };
  }
  const parsed = webhookMessageSchema.safeParse(json);
  if (parsed.success) return { ok: true, message: parsed.data };
  const fields = [...new Set(parsed.error.issues.map((i) => i.path.join('.') || '(root)'))].join(', ');
  const job = jobRefSchema.safeParse(json);
  return {
    ok: false,
    error: `Malformed webhook message: invalid ${fields}`,
    ...(job.success ? { job: { companyId: job.data.companyId, jobId: job.data.jobId } } : {}),
  };
}
