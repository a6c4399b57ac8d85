// Hands a request to the validations queue: stored as pending first, so a poll finds it the moment
// the client learns its id, then the message that makes runValidation finish it.
import { createPendingRequest } from '../../store/validation-requests';
import { enqueueValidation } from './queue-message';
import { inProgress, type InProgress } from './polling';
import type { ValidationRequestBody } from './request-body';

export async function deferValidation(
  companyId: string,
  requestId: string,
  body: ValidationRequestBody,
  now: Date,
): Promise<InProgress> {
  await createPendingRequest({
    companyId,
    requestId,
    status: 'pending',
    input: body.email,
    ...(body.metadata === undefined ? {} : { metadata: body.metadata }),
    createdAt: now.toISOString(),
  });
  await enqueueValidation({ companyId, requestId });
  return inProgress(requestId);
}
