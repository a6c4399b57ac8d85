// What clients see of a job (docs/api.md): the stored state, with `expired` and the
// processing deadline applied at read time so neither waits for a sweeper.
import { z } from 'zod';
import { processingDeadlineSeconds, resultsRetentionSeconds } from './limits';
import { emptyStatistics, type Statistics } from './statuses';
import { dayEndMs, utcDay } from '../../store/jobs/day-counts';
import type { JobDuplicates } from '../../store/jobs/duplicates';
import type { JobItem } from '../../store/jobs/item';
import type { ListedJob } from '../../store/jobs/listing';

export const jobStatuses = ['awaiting_upload', 'processing', 'completed', 'failed', 'expired'] as const;
export type JobStatus = (typeof jobStatuses)[number];

export interface JobView {
  jobId: string;
  status: JobStatus;
  totalEmails: number;
  processedEmails: number;
  percentComplete: number;
  createdAt: string;
  completedAt: string | null;
  statistics: Statistics | null;
  /** Addresses the probe stage could not probe before the deadline (their DNS verdict stands); 0 when none. */
  unprobedEmails: number;
  /** Rows whose address appeared earlier in the file; 0 when none (and on jobs from before duplicates). */
  duplicateEmails: number;
  /** While probe batches wait on a busy MX host's politeness limits: when probing should be done. */
  expectedFinishAt?: string;
  error?: string;
  /** The upload's detected text encoding (`utf-8`, `utf-16le`, `windows-1252`, ...), once scanned. */
  encoding?: string;
  /** Estimate jobs only: null until completed, then the file's rows, the rows sampled, the projection. */
  estimate?: EstimateView | null;
  /** An estimate that was run in full: the job running it. */
  runJobId?: string;
}

export interface EstimateView {
  rows: number;
  sampled: number;
  statistics: Statistics;
}

const count = z.number().int().nonnegative();
const statisticsSchema = z.object({
  safe: count,
  block_bounce_risk: count,
  some_risk: count,
  dead_email: count,
  do_not_mail_abuse: count,
}) satisfies z.ZodType<Statistics>;

const estimateSchema = z.object({
  rows: count.describe('Data rows of the file: the rows a full run gives a status (and counts in usage)'),
  sampled: count.describe(
    "Rows validated: a uniform random sample of 1,000, or every row of a smaller file. They are the estimate job's totalEmails, statistics and usage",
  ),
  statistics: statisticsSchema.describe(
    "The sample's statistics projected to the whole file: whole numbers summing to rows",
  ),
}) satisfies z.ZodType<EstimateView>;

/** GET /v1/email/validate-file/{jobId}: the JSON shape of a JobView. */
export const jobViewSchema = z.object({
  completedAt: z.string().nullable().describe('ISO 8601; null until completed'),
  createdAt: z.string().describe('ISO 8601'),
  duplicateEmails: z
    .number()
    .int()
    .nonnegative()
    .describe(
      "Rows whose address (extracted, normalised, compared without regard to case) appeared earlier in the file: each has its first occurrence's status, counts in totalEmails and statistics, and is not counted in usage. Known once the upload is scanned; 0 when none",
    ),
  encoding: z
    .string()
    .optional()
    .describe(
      "The upload's detected text encoding (utf-8, utf-16le, utf-16be, windows-1252, ...), once scanned",
    ),
  error: z
    .string()
    .optional()
    .describe('Failed jobs, and completed jobs whose results expired: what happened and what to do'),
  expectedFinishAt: z
    .string()
    .optional()
    .describe(
      'Processing jobs whose mailbox probes wait on the politeness limits of a busy mail server: when probing is expected to be done (ISO 8601)',
    ),
  estimate: estimateSchema
    .nullable()
    .optional()
    .describe(
      'Jobs created with "estimate": true only: null until the estimate completes, then what a full run of the file is expected to give',
    ),
  jobId: z.string(),
  percentComplete: z.number().int().min(0).max(100),
  processedEmails: z.number().int().nonnegative(),
  runJobId: z
    .string()
    .optional()
    .describe('An estimate that was run in full (POST .../{jobId}/run): the job running it'),
  statistics: statisticsSchema
    .nullable()
    .describe('Completed jobs only: the count of each status; they sum to totalEmails'),
  status: z.enum(jobStatuses),
  totalEmails: z.number().int().nonnegative(),
  unprobedEmails: z
    .number()
    .int()
    .nonnegative()
    .describe(
      'Addresses the mailbox probe could not reach before the processing deadline: they keep the verdict their domain gives (smtpProbe not_attempted). 0 when every address was probed or probing is off',
    ),
}) satisfies z.ZodType<JobView>;

export const deadlineError = `Processing did not finish within ${processingDeadlineSeconds / 3600} hours. Create a new job and upload the file again; if it happens again, contact support with this job ID.`;

export const resultsExpiredError = `The results were deleted ${resultsRetentionSeconds / 86400} days after the job completed. Create a new job to validate the file again.`;
const cancelledError = 'The job was deleted.';

/**
 * The instant a completed job's results stop being handed out: 30 days after the end of the UTC day it
 * completed in (whole days, so the job list's day counts know when a job turns `expired`).
 */
export function resultsExpireAtMs(job: Pick<JobItem, 'completedAt'>): number {
  return job.completedAt === undefined
    ? Number.POSITIVE_INFINITY
    : dayEndMs(utcDay(job.completedAt)) + resultsRetentionSeconds * 1000;
}

/** What the status views need of a job (the list reads only these attributes, and the owner and file name). */
export type ViewedJob = Omit<ListedJob, 'companyId' | 'fileName'> & Pick<JobDuplicates, 'duplicateEmails'>;

/**
 * The status a job has now: an unused upload URL past its lifetime is `expired`, a job past its
 * processing deadline `failed`, a completed job whose results retention ended `expired`.
 */
export function effectiveStatus(job: ViewedJob, nowMs: number): JobStatus {
  if (job.status === 'awaiting_upload' && nowMs >= job.uploadExpiresAtMs) return 'expired';
  if (job.status === 'processing' && job.deadlineAtMs !== undefined && nowMs >= job.deadlineAtMs)
    return 'failed';
  if (job.status === 'completed' && nowMs >= resultsExpireAtMs(job)) return 'expired';
  if (job.status === 'cancelled') return 'failed';
  return job.status;
}

/** Units of work done: 2 per counted row, plus the credit of chunks still in the probe stage. */
function progressUnits(job: ViewedJob, processed: number): number {
  let units = 2 * processed;
  for (const [chunk, credit] of Object.entries(job.probeUnits ?? {}))
    if (!job.doneChunks?.has(Number(chunk))) units += credit;
  // batches handed back before they settled: the addresses they have verdicts for ("<chunk>-<batch>")
  for (const [batch, done] of Object.entries(job.probeProgress ?? {}))
    if (!job.doneChunks?.has(Number(batch.split('-')[0]))) units += done;
  return units;
}

export function jobView(job: ViewedJob, nowMs: number): JobView {
  const status = effectiveStatus(job, nowMs);
  // Until the scan has counted the rows, totalEmails is not known; never show processed > total.
  const total = Math.max(job.totalEmails, job.processedEmails);
  const processed = status === 'completed' ? total : job.processedEmails;
  let percent = 0;
  if (status === 'completed') percent = 100;
  else if (job.chunkCount !== undefined && total > 0) {
    // two units per row; chunks in the probe stage hold their credit (store/probe-batches.ts), so the bar
    // moves while probing and never steps back
    percent = Math.min(99, Math.floor((progressUnits(job, processed) * 100) / (2 * total)));
  }
  const view: JobView = {
    jobId: job.jobId,
    status,
    totalEmails: total,
    processedEmails: processed,
    percentComplete: percent,
    createdAt: job.createdAt,
    completedAt: status === 'completed' ? (job.completedAt ?? null) : null,
    statistics: status === 'completed' ? { ...emptyStatistics(), ...job.statistics } : null,
    unprobedEmails: job.unprobedEmails ?? 0,
    duplicateEmails: job.duplicateEmails ?? 0,
  };
  const finish = job.probeFinishExpectedAtMs;
  if (status === 'processing' && finish !== undefined && finish > nowMs)
    view.expectedFinishAt = new Date(finish).toISOString();
  if (job.dialect?.encoding) view.encoding = job.dialect.encoding;
  if (job.estimate) view.estimate = job.status === 'completed' ? (job.estimateResult ?? null) : null;
  if (job.runJobId !== undefined) view.runJobId = job.runJobId;
  if (status === 'failed') {
    if (job.status === 'cancelled') view.error = cancelledError;
    else view.error = job.status === 'failed' ? (job.error ?? deadlineError) : deadlineError;
  }
  if (status === 'expired' && job.status === 'completed') {
    view.error = resultsExpiredError;
    view.statistics = { ...emptyStatistics(), ...job.statistics };
    view.totalEmails = job.totalEmails;
    view.processedEmails = job.totalEmails;
    view.completedAt = job.completedAt ?? null;
    view.percentComplete = 100;
  }
  return view;
}
