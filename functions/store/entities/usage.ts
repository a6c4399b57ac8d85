// The items behind usage, quota and the rate limits (store/usage.ts, rate-counters.ts) and the single
// validation requests (store/validation-requests.ts). Keys: ../keys.ts.
import { any, Entity, item, number, string } from 'dynamodb-toolbox';
import { declared } from './declare';
import { mailvetTable } from './table';

const keys = { pk: string().key(), sk: string().key() };

/** COMPANY#<c> / USAGE#<YYYY-MM>: the month's counters (added to, never read-modify-written). */
const usageMonth = new Entity({
  name: 'usageMonth',
  table: mailvetTable,
  entityAttribute: false,
  timestamps: false,
  schema: item({
    ...keys,
    type: string().const('usage'),
    validations: number().optional(),
    single: number().optional(),
    bulk: number().optional(),
    reserved: number().optional(),
    committed: number().optional(),
    quota: number().optional(),
  }),
});
export const usageMonthEntity = declared(usageMonth);

/** COMPANY#<c> / USAGE#PLAN: the company's own monthly quota and the credits ever added. */
const usagePlan = new Entity({
  name: 'usagePlan',
  table: mailvetTable,
  entityAttribute: false,
  timestamps: false,
  schema: item({
    ...keys,
    type: string().const('plan'),
    monthlyQuota: number().optional(),
    creditsAdded: number().optional(),
  }),
});
export const usagePlanEntity = declared(usagePlan);

/** COMPANY#<c> / USAGERES#<jobId>: the validations a running bulk job holds. */
const usageReservation = new Entity({
  name: 'usageReservation',
  table: mailvetTable,
  entityAttribute: false,
  timestamps: false,
  schema: item({
    ...keys,
    type: string().const('usageReservation'),
    jobId: string(),
    rows: number(),
    month: string(),
    ttl: number(),
  }),
});
export const usageReservationEntity = declared(usageReservation);

/** RATE#<companyId>#<second> / RATE and RATE#PUB#<keyId>#<window> / RATE: a rate-limit counter. */
const rateCounter = new Entity({
  name: 'rateCounter',
  table: mailvetTable,
  entityAttribute: false,
  timestamps: false,
  schema: item({ ...keys, count: number(), ttl: number() }),
});
export const rateCounterEntity = declared(rateCounter);

/** COMPANY#<c> / VALIDATION#<requestId>: a single-email validation request (ttl 30 days). */
const validationRequest = new Entity({
  name: 'validationRequest',
  table: mailvetTable,
  entityAttribute: false,
  timestamps: false,
  schema: item({
    ...keys,
    type: string().const('validation_request'),
    companyId: string(),
    requestId: string(),
    status: string().enum('pending', 'completed', 'failed'),
    input: string().optional(),
    metadataJson: string().optional(),
    createdAt: string(),
    validatedAt: string().optional(),
    failedAt: string().optional(),
    outcome: any().optional(),
    error: string().optional(),
    ttl: number(),
  }),
});
export const validationRequestEntity = declared(validationRequest);
