// The job store's items (store/jobs/) and the migration records (store/migrations.ts), declared here so every item
// type of the table is declared once. Keys: the job block of ../keys.ts.
import { boolean, list, map, number, record, set, string } from 'dynamodb-toolbox';
import { storedEntity } from './declare';

const storedStatus = () => string().enum('awaiting_upload', 'processing', 'completed', 'failed', 'cancelled');
const counts = () => record(string(), number());
/** A count per bulk status, all five always present (a job's running counts and its statistics). */
const statistics = () =>
  map({
    safe: number(),
    block_bounce_risk: number(),
    some_risk: number(),
    dead_email: number(),
    do_not_mail_abuse: number(),
  });

/**
 * COMPANY#<c> / JOB#<jobId>, gsi1 COMPANY#<c>#JOBS / <createdAt>#<jobId>, gsi2 by stored state
 * (sparse: none once cancelled). The chunk and probe-stage counters are added to it as the job runs.
 */
export const jobEntity = storedEntity('job', {
  gsi1pk: string().optional(),
  gsi1sk: string().optional(),
  gsi2pk: string().optional(),
  gsi2sk: string().optional(),
  entity: string().const('job'),
  jobId: string(),
  companyId: string(),
  status: storedStatus(),
  emailColumn: number(),
  fileName: string().optional(),
  callbackUrl: string().optional(),
  createdAt: string(),
  uploadExpiresAtMs: number(),
  slot: number(),
  totalEmails: number(),
  uncountedEmails: number().optional(),
  processedEmails: number(),
  counts: statistics(),
  partKeys: record(string(), string()),
  partBytes: counts(),
  doneChunks: set(number()).optional(),
  chunkCount: number().optional(),
  startedAt: string().optional(),
  deadlineAtMs: number().optional(),
  lastProgressAt: string().optional(),
  scanLeaseUntilMs: number().optional(),
  assemblyLeaseUntilMs: number().optional(),
  pin: map({ key: string(), etag: string(), versionId: string().optional(), size: number() }).optional(),
  dialect: map({
    delimiter: string(),
    encoding: string(),
    hasHeader: boolean(),
    headerStart: number().optional(),
    dataStart: number(),
  }).optional(),
  completedAt: string().optional(),
  statistics: statistics().optional(),
  resultKey: string().optional(),
  error: string().optional(),
  webhookQueuedAt: string().optional(),
  webhookAttempts: list(
    map({
      attempt: number(),
      at: string(),
      outcome: string().enum('delivered', 'retry', 'failed', 'refused'),
      statusCode: number().optional(),
      error: string().optional(),
      durationMs: number().optional(),
      nextAttemptAt: string().optional(),
    }),
  ).optional(),
  webhookStatus: string().enum('delivered', 'retrying', 'failed').optional(),
  failedAt: string().optional(),
  countDay: string().optional(),
  cancelledFrom: storedStatus().optional(),
  cancelledAt: string().optional(),
  // an estimate and its run (store/jobs/estimates.ts)
  estimate: boolean().optional(),
  estimateResult: map({ rows: number(), sampled: number(), statistics: statistics() }).optional(),
  runJobId: string().optional(),
  estimateJobId: string().optional(),
  // the upload scan's duplicate rows (store/jobs/duplicates.ts)
  duplicateEmails: number().optional(),
  duplicateTestEmails: number().optional(),
  ttl: number().optional(),
  // the probe stage's counters (store/probe-batches.ts)
  probeChunks: set(number()).optional(),
  probeEmails: number().optional(),
  probedEmails: number().optional(),
  probeUnits: counts().optional(),
  probeSettled: counts().optional(),
  probeLastSettled: counts().optional(),
  settledProbes: set(string()).optional(),
  probeProgress: counts().optional(),
  unprobedEmails: number().optional(),
  blockedEmails: number().optional(),
  probeFinishExpectedAtMs: number().optional(),
});

/** COMPANY#<c> / JOBSLOT#<n>: one of the company's active-job slots. */
export const jobSlotEntity = storedEntity('jobSlot', {
  entity: string().const('jobSlot'),
  jobId: string(),
  holdUntilMs: number(),
  ttl: number(),
});

/** COMPANY#<c> / JOBCOUNT#<YYYY-MM-DD>: the day's jobs by stored status (ttl 38 days). */
export const jobCountDayEntity = storedEntity('jobCountDay', {
  entity: string().const('jobCount'),
  ttl: number(),
  awaiting_upload: number().optional(),
  processing: number().optional(),
  completed: number().optional(),
  failed: number().optional(),
});

/** MIGRATION#<name> / MIGRATION: a one-off data migration finished (store/migrations.ts). */
export const migrationEntity = storedEntity('migration', {
  entity: string().const('migration'),
  name: string(),
  appliedAt: string(),
  summary: string(),
});

/** COMPANY#<c> / PROBEBATCH#<jobId>#<chunk>#<batch>: a probe batch's progress, then its verdicts. */
export const probeBatchEntity = storedEntity('probeBatch', {
  entity: string().const('probeBatch'),
  progress: number().optional(),
  verdicts: record(string(), string()).optional(),
  size: number().optional(),
  settledAt: string().optional(),
  ttl: number().optional(),
});
