// Limits and lifetimes of bulk jobs (docs/api.md), in one place.
import type { JobLimits } from '../../store/jobs/item';

/** Most active jobs (awaiting_upload unexpired, or processing) per company. */
export const maxActiveJobs = 5;
export const maxEmailColumn = 1000;
export const maxFileNameLength = 255;
/** 100 MB (docs/api.md: a file over 104,857,600 bytes fails the job). */
export const maxFileBytes = 104_857_600;
/** Seconds a client waits before creating a job again after a 429. */
export const activeJobsRetryAfterSeconds = 60;

/**
 * A processing job that has not completed this long after its upload reads as (and is then stored as)
 * failed, and stops counting against the limit. A chunk that keeps failing fails the job much sooner
 * (through the chunks DLQ: 3 receives x 720 s visibility); this backstop covers lost messages and
 * crashes nothing else notices, so no job stays in processing forever.
 */
export const processingDeadlineSeconds = 2 * 3600;

/**
 * A scan holds its lease this long and renews it every scanLeaseRenewSeconds while it runs, so a scan
 * whose worker died is taken over by the retried upload event within this time, not the function's
 * timeout (scan-lease.ts). Six renewals fit in a lease: a slow write does not lose it. A duplicate
 * event sees the next renewal within scanLeaseRenewSeconds and is acknowledged then.
 */
export const scanLeaseSeconds = 30;
export const scanLeaseRenewSeconds = 5;
/** An assembly run holds its lease this long (above the function timeout). */
export const assemblyLeaseSeconds = 150;

/** S3's smallest multipart part (every part but the last); the storage module owns it. */
export { minMultipartPartBytes } from '../../store/bucket';

/**
 * Job items and their slots are kept this long after the job is created (then DynamoDB's TTL removes
 * them); a completed job is kept longer, see below.
 */
export const jobRetentionSeconds = 30 * 86400;

/**
 * Results retention (docs/bulk.md, "Retention"): the API hands out results links for 30 days after a
 * job completes; from then on the job reads as `expired` and its download answers 410. The bucket's
 * lifecycle rule deletes results objects a day later than this (lib/stateful-stack.ts), so a link handed
 * out at the last moment still works for its whole lifetime.
 */
export const resultsRetentionSeconds = 30 * 86400;

/** Results objects are deleted by the bucket's lifecycle rule this long after the API stops handing them out. */
export const resultsLifecycleGraceSeconds = 86400;

/** A completed job's item stays this long after its results expired (reads `expired`), then goes. */
export const expiredJobKeptSeconds = 7 * 86400;

/** The limits above as the job store applies them (store/jobs.ts): slots, and how long items are kept. */
export const jobLimits: JobLimits = {
  activeJobs: maxActiveJobs,
  unfinishedKeptSeconds: jobRetentionSeconds,
  completedKeptSeconds: resultsRetentionSeconds + expiredJobKeptSeconds,
};

/** Data rows an estimate job validates: a uniform sample of this many, or every row of a smaller file. */
export const estimateSampleRows = 1000;

/**
 * A completed estimate can be run in full for this long. Its upload is deleted by the bucket's lifecycle
 * rule two days after it arrived (lib/stateful-stack.ts); an estimate completes within the two-hour
 * processing deadline, so the file is always still there within this window.
 */
export const estimateRunWindowSeconds = 24 * 3600;

/** How long an estimate waits for DNS answers of its sample before the rest read some_risk / dns_timeout. */
export const estimateDnsBudgetMs = 60_000;
