// POST /v1/email/validate-async: accept the address (402 without quota or credits left) and queue it at
// once; runValidation finishes it.
import { systemClock, type Clock } from '../../clock';
import { randomUUID } from 'node:crypto';
import { deferValidation } from './defer';
import type { InProgress } from './polling';
import type { ValidationRequestBody } from './request-body';
import { assertValidationsLeft } from '../usage';
import { isTestAddress } from '../validation/test-addresses';

export async function acceptValidation(
  companyId: string,
  body: ValidationRequestBody,
  clock: Clock = systemClock,
): Promise<InProgress> {
  const now = clock();
  // 402 before anything is stored or queued; an accepted request always completes and counts.
  await assertValidationsLeft(companyId, clock, isTestAddress(body.email) ? 0 : 1);
  return deferValidation(companyId, randomUUID(), body, now);
}
