// Single-table key builders. Every pk/sk in the code comes from here, never from a string literal
// elsewhere, so a newcomer can see the whole key design in one file.
//
// Entity            pk                          sk                      gsi1pk / gsi1sk
// company           COMPANY#<companyId>         COMPANY
// user (by email)   COMPANY#<companyId>         USER#<email>
// API key           APIKEY#<sha256 hex>         APIKEY                  COMPANY#<companyId>#APIKEYS / <createdAt>#<keyId>
// rate counter      RATE#<companyId>#<second>   RATE                    (ttl)
// monthly usage     COMPANY#<companyId>         USAGE#<YYYY-MM>
// Domain-specific entities (jobs, validation requests, workspace data) add their builders below,
// one block per domain.

export interface ItemKey {
  pk: string;
  sk: string;
}

export const companyKey = (companyId: string): ItemKey => ({ pk: `COMPANY#${companyId}`, sk: 'COMPANY' });

export const apiKeyKey = (keyHash: string): ItemKey => ({ pk: `APIKEY#${keyHash}`, sk: 'APIKEY' });
export const apiKeysOfCompanyIndex = (companyId: string) => ({ gsi1pk: `COMPANY#${companyId}#APIKEYS` });

export const rateCounterKey = (companyId: string, epochSecond: number): ItemKey => ({
  pk: `RATE#${companyId}#${epochSecond}`,
  sk: 'RATE',
});

export const usageKey = (companyId: string, month: string): ItemKey => ({
  pk: `COMPANY#${companyId}`,
  sk: `USAGE#${month}`,
});

/** A user of a company, keyed by lower-cased email (the users list holds one entry per email). */
export const userKey = (companyId: string, email: string): ItemKey => ({
  pk: `COMPANY#${companyId}`,
  sk: `USER#${email.toLowerCase()}`,
});

/** A bulk validation job. */
export const jobKey = (companyId: string, jobId: string): ItemKey => ({
  pk: `COMPANY#${companyId}`,
  sk: `JOB#${jobId}`,
});

/** A single-email validation request and its result (TTL 30 days). */
export const validationRequestKey = (companyId: string, requestId: string): ItemKey => ({
  pk: `COMPANY#${companyId}`,
  sk: `VALIDATION#${requestId}`,
});

// --- Bulk jobs (functions/domain/bulk) -------------------------------------------------------------
// job slot        COMPANY#<companyId>         JOBSLOT#<n>             n in 0..4: one per active job

/**
 * One of a company's five active-job slots. Creating a job claims a free slot with a conditional put,
 * so the limit holds under any concurrency; a slot whose `holdUntil` has passed is free again.
 */
export const jobSlotKey = (companyId: string, slot: number): ItemKey => ({
  pk: `COMPANY#${companyId}`,
  sk: `JOBSLOT#${slot}`,
});
