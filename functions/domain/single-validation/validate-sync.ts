// POST /v1/email/validate: validate within the budget, else answer "in progress" and finish through
// the queue. The Lambda never relies on running after it has answered.
//
// Primary course:
//   1. 402 when the company has neither quota nor credits left (before any work, from the process's
//      recent read of the plan; test addresses are never counted, so never refused)
//   2. a fresh requestId; start the engine (it never throws)
//   3. done within the budget: store the request as completed and count it, in one transaction whose
//      condition is the quota (so concurrent requests never count past it) -> result, or 402
//   4. over budget: store it pending, queue it for runValidation -> pollUrl, requestId, retryAfter
import { randomUUID } from 'node:crypto';
import { systemClock, type Clock } from '../../clock';
import { deferValidation } from './defer';
import { singleEngine } from './engine';
import type { InProgress } from './polling';
import type { ValidationRequestBody } from './request-body';
import { storeCompletedRequest } from '../../store/validation-requests';
import { completedBody, type CompletedBody } from './result-body';
import { assertSingleValidationsLeft, countWithinQuota, usageMonth } from '../usage';
import { isTestAddress } from '../validation/test-addresses';

export type SyncOutcome =
  { kind: 'completed'; body: CompletedBody } | { kind: 'in_progress'; body: InProgress };

const OVER_BUDGET = Symbol('over budget');

/** The promise's value, or OVER_BUDGET when it takes longer than `ms` (the timer never outlives it). */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | typeof OVER_BUDGET> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<typeof OVER_BUDGET>((resolve) => {
    timer = setTimeout(() => resolve(OVER_BUDGET), ms);
  });
  try {
    return await Promise.race([promise, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * budgetMs <= 0 defers every request (load shedding, tests of the 202 path); the body's timeoutMs
 * shortens the budget, never lengthens it.
 */
export async function validateWithinBudget(
  companyId: string,
  body: ValidationRequestBody,
  budgetMs: number,
  clock: Clock = systemClock,
): Promise<SyncOutcome> {
  await assertSingleValidationsLeft(companyId, clock, isTestAddress(body.email) ? 0 : 1);
  return runWithinBudget(companyId, body, waitMs(budgetMs, body.timeoutMs), clock, 'enforced');
}

/** How long a sync call waits: its budget, or the caller's timeoutMs when that is shorter. */
export function waitMs(budgetMs: number, timeoutMs: number | undefined): number {
  return timeoutMs === undefined ? budgetMs : Math.min(budgetMs, timeoutMs);
}

/**
 * How a completed address counts: 'enforced' in the write, with the quota as its condition (402 when
 * none is left); 'checked' when the caller's check covered it already (a batch's, for all its addresses).
 */
type QuotaAt = 'enforced' | 'checked';

/**
 * Steps 2 to 4 for one address, after the caller's quota check (a batch checks once for all of its
 * addresses). Counted in usage when it completes, unless it is a test address.
 */
export async function runWithinBudget(
  companyId: string,
  body: ValidationRequestBody,
  budgetMs: number,
  clock: Clock,
  quota: QuotaAt,
): Promise<SyncOutcome> {
  const requestId = randomUUID();
  const createdAt = clock();
  if (budgetMs > 0) {
    const validation = singleEngine().validate(body.email, {
      companyId,
      requestedAt: createdAt,
      retryTimeoutBeforeMs: createdAt.getTime() + budgetMs,
    });
    const outcome = await within(validation, budgetMs);
    if (outcome !== OVER_BUDGET) {
      const validatedAt = clock();
      const request = {
        companyId,
        requestId,
        status: 'completed' as const,
        ...(body.metadata === undefined ? {} : { metadata: body.metadata }),
        createdAt: createdAt.toISOString(),
        validatedAt: validatedAt.toISOString(),
        outcome,
      };
      if (isTestAddress(body.email)) await storeCompletedRequest(request, undefined);
      else if (quota === 'checked') await storeCompletedRequest(request, { month: usageMonth(validatedAt) });
      else
        await countWithinQuota(companyId, validatedAt, (month, maxCommittedBefore) =>
          storeCompletedRequest(request, { month, maxCommittedBefore }),
        );
      return { kind: 'completed', body: completedBody(request) };
    }
  }
  // The engine's promise keeps running only as long as this process happens to: the queue owns the work.
  return { kind: 'in_progress', body: await deferValidation(companyId, requestId, body, createdAt) };
}
