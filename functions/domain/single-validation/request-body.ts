// The body of POST /v1/email/validate and /validate-async: `{"email": string, "metadata"?: object}`.
import { ValidationError } from '../../errors';

/** Longer strings are never addresses (254 is the maximum); the cap keeps stored items small. */
export const MAX_EMAIL_LENGTH = 10_000;
/** Metadata is echoed and stored with the request: its JSON must fit comfortably in one item. */
export const MAX_METADATA_BYTES = 16_384;

export interface ValidationRequestBody {
  email: string;
  /** Absent when the body has none (or `null`). */
  metadata?: Record<string, unknown>;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Parses the JSON body; throws ValidationError (400) with the message a client can act on. */
export function parseValidationRequestBody(body: unknown): ValidationRequestBody {
  const fields = isPlainObject(body) ? body : {};
  const { email, metadata } = fields;
  if (typeof email !== 'string') throw new ValidationError('email is required');
  if (email.length > MAX_EMAIL_LENGTH) {
    throw new ValidationError(`email must be ${MAX_EMAIL_LENGTH} characters or less`);
  }
  if (metadata === undefined || metadata === null) return { email };
  if (!isPlainObject(metadata)) throw new ValidationError('metadata must be a JSON object');
  if (Buffer.byteLength(JSON.stringify(metadata)) > MAX_METADATA_BYTES) {
    throw new ValidationError(`metadata must be ${MAX_METADATA_BYTES} bytes or less as JSON`);
  }
  return { email, metadata };
}
