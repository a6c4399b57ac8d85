// The body of POST /v1/email/validate-file (docs/api.md) with the exact error texts of docs/api.md
import { z } from 'zod';
import { ValidationError } from '../../errors';
import { maxEmailColumn, maxFileNameLength } from './limits';

const emailColumnRequired = 'emailColumn is required';
const emailColumnInvalid = 'emailColumn must be a non-negative integer';
// The contract gives the limit but not its text; this one follows the wording of the fileName rule.
const emailColumnTooLarge = `emailColumn must be ${maxEmailColumn} or less`;
const fileNameEmpty = 'fileName must be a non-empty string';
const fileNameTooLong = `fileName must be ${maxFileNameLength} characters or less`;
const fileNameNotCsv = 'fileName must end in .csv';
const callbackInvalid = 'Invalid callbackUrl';
const estimateInvalid = 'estimate must be true or false';

/** Every 400 text of the body, in the order the rules are checked. */
export const createJobRequestErrors = [
  emailColumnRequired,
  emailColumnInvalid,
  emailColumnTooLarge,
  fileNameEmpty,
  fileNameTooLong,
  fileNameNotCsv,
  callbackInvalid,
  estimateInvalid,
];

/** An absolute http(s) URL with a host: anything else cannot receive a webhook. */
function isHttpUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname.length > 0;
}

export const createJobRequestSchema = z.preprocess(
  // A body that is not a JSON object has no emailColumn.
  (body) => (body !== null && typeof body === 'object' && !Array.isArray(body) ? body : {}),
  z.object({
    emailColumn: z
      .number({
        error: (issue) =>
          issue.input === undefined || issue.input === null ? emailColumnRequired : emailColumnInvalid,
      })
      .int({ error: emailColumnInvalid })
      .min(0, { error: emailColumnInvalid })
      .max(maxEmailColumn, { error: emailColumnTooLarge }),
    fileName: z
      .string({ error: fileNameEmpty })
      .refine((name) => name.trim().length > 0, { error: fileNameEmpty, abort: true })
      .refine((name) => name.length <= maxFileNameLength, {
        error: fileNameTooLong,
        abort: true,
      })
      .refine((name) => /\.csv$/i.test(name), { error: fileNameNotCsv })
      .optional(),
    callbackUrl: z
      .string({ error: callbackInvalid })
      .refine(isHttpUrl, { error: callbackInvalid })
      .optional(),
    estimate: z
      .boolean({ error: estimateInvalid })
      .optional()
      .describe(
        'true: validate a random sample of the file (1,000 rows, or every row of a smaller file) and project its statistics to the whole file; no results file. Run it in full with POST .../{jobId}/run',
      ),
  }),
);

export type CreateJobRequest = z.infer<typeof createJobRequestSchema>;

/** The parsed body; ValidationError with the first rule broken, in field order. */
export function parseCreateJobRequest(body: unknown): CreateJobRequest {
  const parsed = createJobRequestSchema.safeParse(body);
  if (!parsed.success) throw new ValidationError(parsed.error.issues[0]?.message ?? 'Invalid request body');
  return parsed.data;
}
