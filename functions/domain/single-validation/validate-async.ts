// POST /v1/email/validate-async: accept the address and queue it at once; runValidation finishes it.
import { randomUUID } from 'node:crypto';
import { deferValidation } from './defer';
import type { InProgress } from './polling';
import type { ValidationRequestBody } from './request-body';

export async function acceptValidation(
  companyId: string,
  body: ValidationRequestBody,
  now: Date = new Date(),
): Promise<InProgress> {
  return deferValidation(companyId, randomUUID(), body, now);
}
