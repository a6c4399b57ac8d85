// GET /v1/email/validate/{requestId}: the outcome of one of the company's requests (docs/api.md).
import { systemClock, type Clock } from '../../clock';
import { NotFoundError } from '../../errors';
import { FAILED_MESSAGE, inProgress, isOverdue, OVERDUE_MESSAGE, type InProgress } from './polling';
import { readRequest } from '../../store/validation-requests';
import { completedBody, parseStoredOutcome, type CompletedBody } from './result-body';

export type PollOutcome =
  | { kind: 'completed'; body: CompletedBody }
  | { kind: 'in_progress'; body: InProgress }
  | { kind: 'failed'; error: string };

export const REQUEST_NOT_FOUND = 'Validation request not found';

// Our ids are UUIDs; anything else cannot exist, so it is not worth a read.
const REQUEST_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Throws NotFoundError for unknown ids and for other companies' ids alike (the key is per company). */
export async function pollValidation(
  companyId: string,
  requestId: string,
  clock: Clock = systemClock,
): Promise<PollOutcome> {
  const now = clock();
  const request = REQUEST_ID.test(requestId)
    ? await readRequest(companyId, requestId, parseStoredOutcome)
    : undefined;
  if (!request) throw new NotFoundError(REQUEST_NOT_FOUND);
  switch (request.status) {
    case 'completed':
      return { kind: 'completed', body: completedBody(request) };
    case 'failed':
      return { kind: 'failed', error: request.error ?? FAILED_MESSAGE };
    case 'pending':
      if (isOverdue(request.createdAt, now)) return { kind: 'failed', error: OVERDUE_MESSAGE };
      return { kind: 'in_progress', body: inProgress(request.requestId) };
  }
}
