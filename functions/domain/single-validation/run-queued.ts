// The validations queue's consumers: finish a queued request (runValidation), or fail one whose
// message reached the dead-letter queue (failValidation). Both are idempotent per message: only a
// pending request changes, under a condition, so redeliveries write and count nothing.
//
// Primary course (runValidation):
//   1. read the request; gone (TTL) or no longer pending -> nothing to do
//   2. overdue -> fail it (polling has been answering 500 already)
//   3. validate; pending -> completed with its usage, in one conditional transaction
import { systemClock, type Clock } from '../../clock';
import type { Logger } from '../../log';
import { singleEngine } from './engine';
import { FAILED_MESSAGE, isOverdue, OVERDUE_MESSAGE } from './polling';
import type { ValidationMessage } from './queue-message';
import { completePendingRequest, failPendingRequest, readRequest } from '../../store/validation-requests';
import { usageMonth } from '../usage';
import { isTestAddress } from '../validation/test-addresses';

export type RunOutcome = 'completed' | 'already_done' | 'not_found' | 'overdue';

export async function runQueuedValidation(
  message: ValidationMessage,
  log: Logger,
  clock: Clock = systemClock,
): Promise<RunOutcome> {
  const { companyId, requestId } = message;
  const request = await readRequest(companyId, requestId);
  if (!request) {
    log.warn('validation request not found; message dropped', { companyId, requestId });
    return 'not_found';
  }
  if (request.status !== 'pending') return 'already_done';
  if (isOverdue(request.createdAt, clock())) {
    await failPendingRequest(companyId, requestId, OVERDUE_MESSAGE, clock().toISOString());
    return 'overdue';
  }
  const input = request.input ?? '';
  const outcome = await singleEngine().validate(input, {
    companyId,
    requestedAt: new Date(request.createdAt),
  });
  const validatedAt = clock();
  const stored = await completePendingRequest(
    companyId,
    requestId,
    outcome,
    validatedAt.toISOString(),
    // test addresses are never counted
    isTestAddress(input) ? undefined : usageMonth(validatedAt),
  );
  return stored ? 'completed' : 'already_done';
}

/** True when the request was pending and is now failed. */
export async function failQueuedValidation(
  message: ValidationMessage,
  clock: Clock = systemClock,
): Promise<boolean> {
  const now = clock();
  return failPendingRequest(message.companyId, message.requestId, FAILED_MESSAGE, now.toISOString());
}
