// POST /v1/email/validate-batch: up to 100 addresses, each validated as a single request would be
// (runWithinBudget), a bounded number at a time, all within one sync budget.
//
// Primary course:
//   1. 402 when quota plus credits cannot cover the batch's counted addresses (test addresses are free)
//   2. validate the addresses, at most BATCH_CONCURRENCY at once; each gets what is left of the budget
//   3. answer in input order: a completed address's single result body, or a still-running one's
//      {email, pollUrl, requestId} (poll it like a single request; it completes and counts then)
import { systemClock, type Clock } from '../../clock';
import { mapLimited } from '../../concurrency';
import { z } from 'zod';
import { ValidationError } from '../../errors';
import { completedBodySchema, type CompletedBody } from './result-body';
import {
  emailField,
  metadataField,
  timeoutMsField,
  validationRequestErrors,
  type ValidationRequestBody,
} from './request-body';
import { runWithinBudget, waitMs } from './validate-sync';
import { assertValidationsLeft } from '../usage';
import { isTestAddress } from '../validation/test-addresses';

const MAX_BATCH_EMAILS = 100;
/** Addresses validated at once: enough to finish a full batch of cached domains in well under a second. */
const BATCH_CONCURRENCY = 10;

const batchEmailsError = `emails must be 1 to ${MAX_BATCH_EMAILS} strings`;
/** Every 400 text of the body: the list's rule, then the single body's (an address's length, metadata). */
export const batchRequestErrors = [
  batchEmailsError,
  ...validationRequestErrors.filter((text) => !text.startsWith('email is')),
];

/**
 * The body: `{"emails": [string, 1..100], "metadata"?: object, "timeoutMs"?: integer}` (metadata is
 * echoed in every result; timeoutMs bounds the whole batch's wait, within the sync budget).
 */
export const batchRequestSchema = z.object({
  emails: z
    .array(emailField, { error: batchEmailsError })
    .min(1, { error: batchEmailsError })
    .max(MAX_BATCH_EMAILS, { error: batchEmailsError })
    .describe(`The addresses to validate, 1 to ${MAX_BATCH_EMAILS}; answered in this order`),
  metadata: metadataField,
  timeoutMs: timeoutMsField,
});
export type BatchRequestBody = z.infer<typeof batchRequestSchema>;

/** An address still running when the budget ran out: poll it as a single request. */
const batchPendingSchema = z.object({
  email: z.string().describe('The address as submitted'),
  pollUrl: z.string().describe('Relative to the API origin: GET it for the result'),
  requestId: z.string(),
});
export type BatchPending = z.infer<typeof batchPendingSchema>;

export const batchResponseSchema = z.object({
  results: z
    .array(z.union([completedBodySchema, batchPendingSchema]))
    .describe('One per address, in input order: its result, or where to poll for it'),
});
export type BatchResponse = { results: (CompletedBody | BatchPending)[] };

/** Parses the JSON body; throws ValidationError (400) with the first rule broken. */
export function parseBatchRequestBody(body: unknown): BatchRequestBody {
  const object = typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {};
  const emails = (object as { emails?: unknown }).emails;
  // one message for every way the list can be wrong (missing, empty, too long, a non-string in it)
  if (
    !Array.isArray(emails) ||
    emails.length < 1 ||
    emails.length > MAX_BATCH_EMAILS ||
    !emails.every((email) => typeof email === 'string')
  )
    throw new ValidationError(batchEmailsError);
  const parsed = batchRequestSchema.safeParse(object);
  if (!parsed.success) throw new ValidationError(parsed.error.issues[0]?.message ?? 'Invalid request body');
  const { metadata, timeoutMs } = parsed.data;
  return {
    emails: parsed.data.emails,
    ...(metadata === undefined ? {} : { metadata }),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  };
}

export async function validateBatch(
  companyId: string,
  body: BatchRequestBody,
  budgetMs: number,
  clock: Clock = systemClock,
): Promise<BatchResponse> {
  const counted = body.emails.filter((email) => !isTestAddress(email)).length;
  await assertValidationsLeft(companyId, clock, counted);
  const deadline = clock().getTime() + waitMs(budgetMs, body.timeoutMs);
  const results = await mapLimited(body.emails, BATCH_CONCURRENCY, async (email) => {
    const single: ValidationRequestBody =
      body.metadata === undefined ? { email } : { email, metadata: body.metadata };
    // an address that starts late gets only what is left; none left: it goes to the queue at once
    const outcome = await runWithinBudget(companyId, single, deadline - clock().getTime(), clock, 'checked');
    if (outcome.kind === 'completed') return outcome.body;
    return { email, pollUrl: outcome.body.pollUrl, requestId: outcome.body.requestId };
  });
  return { results };
}
