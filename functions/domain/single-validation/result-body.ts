// The 200 body of a completed request (docs/api.md "Single addresses"): the engine's answer plus
// requestId, validatedAt and the caller's metadata. Keys are sorted when the response is written.
import { z } from 'zod';
import { REASONS, STATUSES, type ValidationResult } from '../validation';
import type { ValidationRequest } from '../../store/validation-requests';

export type CompletedBody = ValidationResult & {
  requestId: string;
  validatedAt: string;
  metadata?: Record<string, unknown>;
};

/** Every probe outcome once: adding one to the engine's types fails the build until listed. */
type SmtpProbe = ValidationResult['mailbox']['smtpProbe'];
const smtpProbes = {
  accepted: true,
  not_found: true,
  disabled: true,
  full: true,
  greylisted: true,
  timeout: true,
  unreachable: true,
  blocked: true,
  error: true,
  proxy_failed: true,
  unverifiable: true,
  not_attempted: true,
  off: true,
  skipped: true,
} satisfies Record<SmtpProbe, true>;
const keysOf = <K extends string>(record: Record<K, true>) => Object.keys(record) as [K, ...K[]];

/** The JSON shape of a CompletedBody (the 200 of the sync endpoint and of polling). */
export const completedBodySchema = z.object({
  didYouMean: z.string().optional().describe('A likely intended address, when the domain looks mistyped'),
  domain: z.object({
    hasMailServer: z.boolean().nullable(),
    isCatchAll: z.boolean().nullable(),
    isDisposable: z.boolean(),
    isFreeProvider: z.boolean(),
    mxProvider: z.string().nullable(),
    mxRecords: z.array(z.object({ exchange: z.string(), priority: z.number().int() })),
    name: z.string(),
    registrableDomain: z.string().nullable(),
    unicodeName: z.string(),
  }),
  email: z.string(),
  mailbox: z.object({
    isAbuseRole: z.boolean(),
    isKnownComplainer: z.boolean(),
    isKnownDead: z.boolean(),
    isRoleAccount: z.boolean(),
    localPart: z.string(),
    smtpProbe: z.enum(keysOf(smtpProbes)).describe('off, skipped, or the SMTP probe’s outcome'),
    smtpReply: z
      .object({
        code: z.number().int().min(100).max(599).describe('Basic reply code (550)'),
        enhanced: z.string().nullable().describe('RFC 3463 enhanced status code (5.1.1), null when not sent'),
        text: z.string().describe('The reply text on one line, at most 200 characters'),
      })
      .nullable()
      .describe('The mail server’s reply that decided smtpProbe; null when no reply decided'),
  }),
  metadata: z.record(z.string(), z.unknown()).optional().describe('The request’s metadata, echoed'),
  requestId: z.string(),
  result: z.object({
    reason: z.enum(REASONS).describe('Machine-readable why of the verdict (docs/validation.md)'),
    status: z.enum(STATUSES),
    subStatus: z
      .string()
      .nullable()
      .describe(
        'Detail of the reason; for a probe verdict the server’s enhanced code (5.1.1), else its basic code',
      ),
  }),
  validatedAt: z.string().describe('ISO 8601'),
}) satisfies z.ZodType<CompletedBody>;

/**
 * The engine's answer as a request stores it: the body less what the request adds. Results stored
 * before smtpReply existed have none, read as null.
 */
const storedOutcomeSchema = completedBodySchema
  .omit({ metadata: true, requestId: true, validatedAt: true })
  .extend({
    mailbox: completedBodySchema.shape.mailbox.extend({
      smtpReply: completedBodySchema.shape.mailbox.shape.smtpReply.default(null),
    }),
  }) satisfies z.ZodType<ValidationResult, unknown>;

/** A stored outcome, checked (a read of the request store passes it as its OutcomeParser). */
export function parseStoredOutcome(stored: unknown): ValidationResult {
  return storedOutcomeSchema.parse(stored);
}

export function completedBody(request: ValidationRequest<ValidationResult>): CompletedBody {
  if (!request.outcome || !request.validatedAt) throw new Error(`Request ${request.requestId} has no result`);
  return {
    ...request.outcome,
    requestId: request.requestId,
    validatedAt: request.validatedAt,
    ...(request.metadata === undefined ? {} : { metadata: request.metadata }),
  };
}
