// The items behind usage, quota and the rate limits (store/usage.ts, rate-counters.ts) and the single
// validation requests (store/validation-requests.ts). Keys: ../keys.ts.
import { any, Entity, item, number, string } from 'dynamodb-toolbox';
import { declared } from './declare';
import { mailvetTable } from './table';

const options = { table: mailvetTable, entityAttribute: false, timestamps: false } as const;
const keys = { pk: string().key(), sk: string().key() };

/** COMPANY#<c> / USAGE#<YYYY-MM>: the month's counters (added to, never read-modify-written). */
export const usageMonthEntity = declared(
  new Entity({
    name: 'usageMonth',
    ...options,
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
  }),
);

/** COMPANY#<c> / USAGE#PLAN: the company's own monthly quota and the credits ever added. */
export const usagePlanEntity = declared(
  new Entity({
    name: 'usagePlan',
    ...options,
    schema: item({
      ...keys,
      type: string().const('plan'),
      monthlyQuota: number().optional(),
      creditsAdded: number().optional(),
    }),
  }),
);

/** COMPANY#<c> / USAGERES#<jobId>: the validations a running bulk job holds. */
export const usageReservationEntity = declared(
  new Entity({
    name: 'usageReservation',
    ...options,
    schema: item({
      ...keys,
      type: string().const('usageReservation'),
      jobId: string(),
      rows: number(),
      month: string(),
      ttl: number(),
    }),
  }),
);

/** RATE#<companyId>#<second> / RATE and RATE#PUB#<keyId>#<window> / RATE: a rate-limit counter. */
export const rateCounterEntity = declared(
  new Entity({
    name: 'rateCounter',
    ...options,
    schema: item({ ...keys, count: number(), ttl: number() }),
  }),
);

/** COMPANY#<c> / VALIDATION#<requestId>: a single-email validation request (ttl 30 days). */
export const validationRequestEntity = declared(
  new Entity({
    name: 'validationRequest',
    ...options,
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
  }),
);
