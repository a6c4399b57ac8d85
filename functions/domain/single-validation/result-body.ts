// The 200 body of a completed request (decisions.md "Single-email validation"): the engine's answer plus
// requestId, validatedAt and the caller's metadata. Keys are sorted when the response is written.
import type { ValidationResult } from '../validation';
import type { ValidationRequest } from './request-store';

export type CompletedBody = ValidationResult & {
  requestId: string;
  validatedAt: string;
  metadata?: Record<string, unknown>;
};

export function completedBody(request: ValidationRequest): CompletedBody {
  if (!request.outcome || !request.validatedAt) throw new Error(`Request ${request.requestId} has no result`);
  return {
    ...request.outcome,
    requestId: request.requestId,
    validatedAt: request.validatedAt,
    ...(request.metadata === undefined ? {} : { metadata: request.metadata }),
  };
}
