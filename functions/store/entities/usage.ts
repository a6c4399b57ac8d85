// The items behind usage, quota and the rate limits (store/usage.ts, rate-counters.ts) and the single
// validation requests (store/validation-requests.ts). Keys: ../keys.ts.
import { any, number, string } from 'dynamodb-toolbox';
import { storedEntity } from './declare';

/** COMPANY#<c> / USAGE#<YYYY-MM>: the month's counters (added to, never read-modify-written). */
export const usageMonthEntity = storedEntity('usageMonth', {
  type: string().const('usage'),
  validations: number().optional(),
  single: number().optional(),
  bulk: number().optional(),
  reserved: number().optional(),
  committed: number().optional(),
  quota: number().optional(),
});

/** COMPANY#<c> / USAGE#PLAN: the company's own monthly quota and the credits ever added. */
export const usagePlanEntity = storedEntity('usagePlan', {
  type: string().const('plan'),
  monthlyQuota: number().optional(),
  creditsAdded: number().optional(),
});

/** COMPANY#<c> / USAGERES#<jobId>: the validations a running bulk job holds. */
export const usageReservationEntity = storedEntity('usageReservation', {
  type: string().const('usageReservation'),
  jobId: string(),
  rows: number(),
  month: string(),
  ttl: number(),
});

/** RATE#<companyId>#<second> / RATE and RATE#PUB#<keyId>#<window> / RATE: a rate-limit counter. */
export const rateCounterEntity = storedEntity('rateCounter', { count: number(), ttl: number() });

/** COMPANY#<c> / VALIDATION#<requestId>: a single-email validation request (ttl 30 days). */
export const validationRequestEntity = storedEntity('validationRequest', {
  type: string().const('validation_request'),
  companyId: string(),
  requestId: string(),
  status: string().enum('pending', 'completed', 'failed'),
  input: string().optional(),
  metadataJson: string().optional(),
  createdAt: string(),
  validatedAt: string().optional(),
  failedAt: string().optional(),
  /** The engine's result as JSON text. */
  outcomeJson: string().optional(),
  /** The same as nested maps: items written before outcomeJson (they expire within 30 days). */
  outcome: any().optional(),
  error: string().optional(),
  ttl: number(),
});
