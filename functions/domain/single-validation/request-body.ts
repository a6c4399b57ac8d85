// The body of POST /v1/email/validate and /validate-async: `{"email": string, "metadata"?: object,
// "timeoutMs"?: integer}` (timeoutMs: how long the sync call waits at most; validate-async ignores it).
import { z } from 'zod';
import { ValidationError } from '../../errors';

/** Longer strings are never addresses (254 is the maximum); the cap keeps stored items small. */
const MAX_EMAIL_LENGTH = 10_000;
/** Metadata is echoed and stored with the request: its JSON must fit comfortably in one item. */
const MAX_METADATA_BYTES = 16_384;

const emailRequired = 'email is required';
const emailTooLong = `email must be ${MAX_EMAIL_LENGTH} characters or less`;
const metadataNotObject = 'metadata must be a JSON object';
const metadataTooLarge = `metadata must be ${MAX_METADATA_BYTES} bytes or less as JSON`;
/** The largest timeoutMs taken; the sync budget (SYNC_BUDGET_MS, 30 s by default) bounds it anyway. */
const MAX_TIMEOUT_MS = 300_000;
const timeoutMsInvalid = `timeoutMs must be an integer from 1 to ${MAX_TIMEOUT_MS}`;

/** Every 400 text of the body, in the order the rules are checked. */
export const validationRequestErrors = [
  emailRequired,
  emailTooLong,
  metadataNotObject,
  metadataTooLarge,
  timeoutMsInvalid,
];

const plainObjectOrEmpty = (body: unknown) =>
  typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {};

/** One address (also each of a batch's). */
export const emailField = z
  .string({ error: emailRequired })
  .max(MAX_EMAIL_LENGTH, { error: emailTooLong })
  .describe('The address to validate');

/** The caller's metadata (also a batch's, echoed in each of its results). */
export const metadataField = z.preprocess(
  (value) => (value === null ? undefined : value),
  z
    .record(z.string(), z.unknown(), { error: metadataNotObject })
    .refine((metadata) => Buffer.byteLength(JSON.stringify(metadata)) <= MAX_METADATA_BYTES, {
      error: metadataTooLarge,
    })
    .optional()
    .describe(`Echoed in the result; at most ${MAX_METADATA_BYTES} bytes as JSON`),
);

/** How long the sync call waits at most (also a batch's, for all its addresses). */
export const timeoutMsField = z
  .number({ error: timeoutMsInvalid })
  .int({ error: timeoutMsInvalid })
  .min(1, { error: timeoutMsInvalid })
  .max(MAX_TIMEOUT_MS, { error: timeoutMsInvalid })
  .optional()
  .describe(
    'Milliseconds the call waits for the verdict at most, within the sync budget (30 s by default): when they have passed, the answer is 202 with a poll URL, as when the budget runs out',
  );

export const validationRequestSchema = z.preprocess(
  // A body that is not a JSON object has no email.
  plainObjectOrEmpty,
  z.object({ email: emailField, metadata: metadataField, timeoutMs: timeoutMsField }),
);

export type ValidationRequestBody = z.infer<typeof validationRequestSchema>;

/** Parses the JSON body; throws ValidationError (400) with the first rule broken, in field order. */
export function parseValidationRequestBody(body: unknown): ValidationRequestBody {
  const parsed = validationRequestSchema.safeParse(body);
  if (!parsed.success) throw new ValidationError(parsed.error.issues[0]?.message ?? 'Invalid request body');
  const { email, metadata, timeoutMs } = parsed.data;
  return {
    email,
    ...(metadata === undefined ? {} : { metadata }),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  };
}
