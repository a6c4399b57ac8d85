// The API's use cases on bulk jobs: create one (within the active-job limit), read its status, and
// describe its results download.
import { systemClock, type Clock } from '../../clock';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { ConflictError, GoneError, NotFoundError, TooManyRequestsError } from '../../errors';
import { countMetric } from '../../metrics';
import { settings } from '../../settings';
import { enumParam, listQuery } from '../workspace/query';
import type { CreateJobRequest } from './create-job-request';
import { reasonColumnHeader } from './csv/row-index';
import { deleteJobObjects } from './job-objects';
import { getJobItem, type JobItem, type NewJob, type StoredJobStatus } from '../../store/jobs/item';
import {
  companyJobsInStatesNewestFirst,
  companyJobsNewestFirst,
  readCompanyJobCounts,
  type StateRange,
} from '../../store/jobs/listing';
import { claimSlot, slotHoldingJobs, releaseSlot } from '../../store/jobs/slots-and-leases';
import {
  deleteJob as deleteJobItem,
  markCancelled,
  markFailed,
  putNewJob,
} from '../../store/jobs/transitions';
import {
  deadlineError,
  effectiveStatus,
  jobStatuses,
  jobView,
  jobViewSchema,
  resultsExpiredError,
  resultsExpireAtMs,
  type JobStatus,
  type JobView,
} from './job-view';
import { allJobs, jobTotals } from './job-totals';
import {
  activeJobsRetryAfterSeconds,
  jobLimits,
  resultsLifecycleGraceSeconds,
  resultsRetentionSeconds,
} from './limits';
import { resultFileName, resultIndexKey, resultVariantKey, uploadObjectKey } from './object-keys';
import { presignDownload, presignUpload } from './presign';
import { releaseFailedJob, settleDeletedJob } from '../usage';
import type { JobDuplicates } from '../../store/jobs/duplicates';
import { produceVariant } from './results-variants';
import { objectExists } from '../../store/bucket';
import type { JobEstimateState } from '../../store/jobs/estimates';
import { bulkStatuses, emptyStatistics } from './statuses';

export const concurrentJobLimitMessage =
  'Concurrent job limit reached. Complete or wait for existing jobs before creating new ones.';
export const jobNotFoundMessage = 'Job not found';
export const jobNotCompletedMessage = 'Job is not completed';
export const estimateNoResultsMessage =
  'This job is an estimate and has no results file. Run it in full with POST /v1/email/validate-file/{jobId}/run, then download that job.';

/** POST /v1/email/validate-file's 202 body. */
export const createdJobSchema = z.object({
  jobId: z.string(),
  status: z.literal('awaiting_upload'),
  uploadExpiresIn: z.number().int().positive().describe('Seconds the upload URL stays valid'),
  uploadUrl: z.string().describe('Presigned PUT; send the CSV with Content-Type: text/csv'),
});
export type CreatedJob = z.infer<typeof createdJobSchema>;

/**
 * Primary course: claim one of the company's active-job slots until the upload URL expires (429 when
 * all five are held), store the job, presign the upload.
 */
export async function createJob(
  companyId: string,
  request: CreateJobRequest,
  clock: Clock = systemClock,
  /** A run of an estimate (estimate/run-estimate.ts): its id, chosen beforehand, and the estimate's. */
  run?: { jobId: string; estimateJobId: string },
): Promise<CreatedJob> {
  const now = clock();
  const ttl = settings().UPLOAD_URL_TTL_SECONDS;
  const jobId = run?.jobId ?? randomUUID();
  const uploadExpiresAtMs = now.getTime() + ttl * 1000;
  const slot = await claimSlot(companyId, jobId, uploadExpiresAtMs, now.getTime(), jobLimits);
  if (slot === undefined)
    throw new TooManyRequestsError(concurrentJobLimitMessage, activeJobsRetryAfterSeconds);
  try {
    const job: NewJob & JobEstimateState = {
      jobId,
      companyId,
      emailColumn: request.emailColumn,
      fileName: request.fileName,
      callbackUrl: request.callbackUrl,
      createdAt: now.toISOString(),
      uploadExpiresAtMs,
      slot,
      counts: emptyStatistics(),
      ...(request.estimate ? { estimate: true } : {}),
      ...(run ? { estimateJobId: run.estimateJobId } : {}),
    };
    await putNewJob(job, jobLimits);
    const uploadUrl = await presignUpload(uploadObjectKey(companyId, jobId), ttl);
    countMetric('JobsCreated');
    return { jobId, status: 'awaiting_upload', uploadUrl, uploadExpiresIn: ttl };
  } catch (error) {
    await releaseSlot(companyId, slot, jobId).catch(() => undefined);
    throw error;
  }
}

/** The job, cancelled ones included (a DELETE that stopped halfway is finished by the next one). */
async function findJob(companyId: string, jobId: string): Promise<JobItem | undefined> {
  // The id is part of a key only after it proved to be a UUID: anything else is simply unknown.
  return /^[0-9a-f-]{36}$/i.test(jobId) ? await getJobItem(companyId, jobId) : undefined;
}

export async function requireJob(companyId: string, jobId: string): Promise<JobItem> {
  const job = await findJob(companyId, jobId);
  // A job being deleted is already gone as far as clients can tell.
  if (!job || job.status === 'cancelled') throw new NotFoundError(jobNotFoundMessage);
  return job;
}

export async function readJob(
  companyId: string,
  jobId: string,
  clock: Clock = systemClock,
): Promise<JobView> {
  const now = clock();
  const job = await requireJob(companyId, jobId);
  if (job.status === 'processing' && effectiveStatus(job, now.getTime()) === 'failed') {
    // Past its deadline: store the failure, so a late chunk cannot complete it afterwards, and free its slot.
    if (await markFailed(job, deadlineError, ['processing'], now.toISOString(), now.getTime())) {
      await releaseSlot(job.companyId, job.slot, job.jobId);
      await releaseFailedJob({ ...job, status: 'failed' });
    }
  } else if (job.status === 'failed') {
    // A reservation a crash left behind after the failure.
    await releaseFailedJob(job);
  }
  return jobView(job, now.getTime());
}

/** GET /v1/email/validate-file/{jobId}/download's 200 body. */
export const downloadDescriptorSchema = z.object({
  downloadUrl: z.string().describe('Presigned GET of the results CSV'),
  expiresIn: z.number().int().positive().describe('Seconds the download URL stays valid'),
  fileName: z.string().describe('The results file name the download suggests'),
  format: z.literal('csv'),
  jobId: z.string(),
});
export type DownloadDescriptor = z.infer<typeof downloadDescriptorSchema>;

const statusListMessage = `status must be a comma-separated list of ${bulkStatuses.join(', ')}`;
const columnsMessage = 'columns must be a comma-separated list of status, reason';
const uniqueMessage = 'unique must be true or false';

/** A comma-separated list of values out of `allowed`; each value at most once, any order. */
const commaList = (allowed: readonly string[], message: string) =>
  z
    .string()
    .transform((text) => text.split(',').map((value) => value.trim()))
    .refine((values) => values.every((value) => allowed.includes(value)), { error: message });

/** GET .../download's query: which rows (`status`) and which extra columns (`columns`). */
export const downloadQuery = z.object({
  status: commaList(bulkStatuses, statusListMessage)
    .optional()
    .describe(
      `Keep only data rows with these statuses (header and empty lines are kept): ${bulkStatuses.join(', ')}`,
    ),
  columns: commaList(['status', 'reason'], columnsMessage)
    .optional()
    .describe(
      `status (default) or status,reason: reason appends ${reasonColumnHeader}, the engine's reason per row`,
    ),
  unique: z
    .enum(['true', 'false'], { error: uniqueMessage })
    .optional()
    .describe(
      'true: leave out data rows whose address appeared earlier in the file (see duplicateEmails), keeping first occurrences only',
    ),
});

export type DownloadQuery = z.infer<typeof downloadQuery>;

/** The 400 texts of a bad download query. */
export const downloadQueryErrors = [statusListMessage, columnsMessage, uniqueMessage];

export const resultsExpiredMessage = resultsExpiredError;

/**
 * Primary course: the job is completed and its results are within retention (else 409 / 410); with no
 * filter, presign the results file; with one, make the copy once (a later call finds it) and presign
 * that. A link never outlives the object it points at: its lifetime is capped by the lifecycle rule's
 * deletion time.
 */
export async function describeDownload(
  companyId: string,
  jobId: string,
  filter: DownloadQuery = {},
  clock: Clock = systemClock,
): Promise<DownloadDescriptor> {
  const now = clock();
  const job = await requireJob(companyId, jobId);
  const status = effectiveStatus(job, now.getTime());
  if (status === 'completed' && (job as JobEstimateState).estimate)
    throw new ConflictError(estimateNoResultsMessage);
  if (status === 'expired' && job.status === 'completed') throw new GoneError(resultsExpiredMessage);
  if (status !== 'completed' || !job.resultKey) throw new ConflictError(jobNotCompletedMessage);
  if (!(await objectExists(job.resultKey))) throw new GoneError(resultsExpiredMessage);

  const statuses = filter.status ? bulkStatuses.filter((s) => filter.status!.includes(s)) : undefined;
  const reason = filter.columns?.includes('reason') ?? false;
  // a job without duplicates: its unique copy is the results file itself
  const unique = filter.unique === 'true' && ((job as JobDuplicates).duplicateEmails ?? 0) > 0;
  let key = job.resultKey;
  let fileName = resultFileName(job.jobId, job.fileName);
  if (statuses || reason || unique) {
    const variant = [...(statuses ?? []), ...(reason ? ['reason'] : []), ...(unique ? ['unique'] : [])].join(
      '+',
    );
    key = resultVariantKey(job.companyId, job.jobId, variant);
    fileName = fileName.replace(/\.csv$/, `.${variant}.csv`);
    if (!(await objectExists(key))) {
      const indexKey = resultIndexKey(job.companyId, job.jobId);
      if (!(await objectExists(indexKey))) throw new ConflictError(noRowIndexMessage);
      await produceVariant(job.resultKey, indexKey, key, {
        statuses: statuses && new Set(statuses),
        reason,
        unique,
        delimiter: job.dialect?.delimiter ?? ',',
        encoding: job.dialect?.encoding ?? 'utf-8',
      });
    }
  }
  const untilDeletedSeconds = Math.floor(
    (resultsExpireAtMs(job) + resultsLifecycleGraceSeconds * 1000 - now.getTime()) / 1000,
  );
  const ttl = Math.max(1, Math.min(settings().DOWNLOAD_URL_TTL_SECONDS, untilDeletedSeconds));
  const downloadUrl = await presignDownload(key, fileName, ttl);
  return { jobId: job.jobId, downloadUrl, expiresIn: ttl, fileName, format: 'csv' };
}

/** Jobs completed before the row index existed have none: only the full file can be served. */
export const noRowIndexMessage =
  'This job was completed before filtered downloads existed; download the full results without status or columns';

// --- List ----------------------------------------------------------------------------------------

/** GET /v1/email/validate-file's query. */
export const listJobsQuery = listQuery({
  status: enumParam('status', jobStatuses).optional(),
});
export type ListJobsQuery = z.infer<typeof listJobsQuery>;

/**
 * Where jobs with effective status `status` are stored (job-view.ts effectiveStatus): the stored states
 * they can be in. A completed job reads `expired` only once it completed more than 30 days ago, so it
 * was created before that.
 */
function storedRangesOf(status: JobStatus, nowMs: number): StateRange[] {
  switch (status) {
    case 'failed':
      return [{ state: 'failed' }, { state: 'processing' }];
    case 'expired':
      return [
        { state: 'awaiting_upload' },
        { state: 'completed', createdBefore: new Date(nowMs - resultsRetentionSeconds * 1000).toISOString() },
      ];
    default:
      return [{ state: status }];
  }
}
const listedStatuses: StoredJobStatus[] = ['awaiting_upload', 'processing', 'completed', 'failed'];

const jobListItemSchema = jobViewSchema.extend({
  fileName: z.string().nullable().describe('The fileName given at creation; null when none was'),
});
export const jobListSchema = z.object({
  jobs: z.array(jobListItemSchema),
  limit: z.number().int(),
  offset: z.number().int(),
  total: z.number().int().describe('Every job of the company that matches the filter'),
});
export type JobList = z.infer<typeof jobListSchema>;

/**
 * The company's jobs, newest first. `total` comes from the company's day counts (one Query of at most
 * 39 small items) and the jobs holding its five slots (one Query, one BatchGet), never from the jobs
 * themselves; the page reads the creation-time index (gsi1), or with `status` the per-state index
 * (gsi2) of each stored state that can show as it, up to offset + limit matching items.
 */
export async function listJobs(
  companyId: string,
  query: ListJobsQuery,
  clock: Clock = systemClock,
): Promise<JobList> {
  const now = clock();
  const nowMs = now.getTime();
  const counts = await readCompanyJobCounts(companyId, nowMs, jobLimits);
  const totals = jobTotals(counts, await slotHoldingJobs(companyId, nowMs), nowMs);
  const total = query.status ? totals[query.status] : allJobs(totals);
  const jobs: JobList['jobs'] = [];
  if (query.offset < total) {
    let matched = 0;
    const pageSize = query.offset + query.limit;
    // Unfiltered: the creation-time index; by status: the per-state index of each state it can be in.
    const listed = query.status
      ? companyJobsInStatesNewestFirst(companyId, storedRangesOf(query.status, nowMs), nowMs, pageSize)
      : companyJobsNewestFirst(companyId, listedStatuses, nowMs, pageSize);
    for await (const job of listed) {
      if (query.status && effectiveStatus(job, nowMs) !== query.status) continue;
      matched++;
      if (matched > query.offset) jobs.push({ ...jobView(job, nowMs), fileName: job.fileName ?? null });
      // Knowing the total, the read stops at the last matching job rather than the end of the index.
      if (jobs.length >= query.limit || matched >= total) break;
    }
  }
  return { jobs, limit: query.limit, offset: query.offset, total };
}

// --- Delete --------------------------------------------------------------------------------------

/**
 * Primary course: cancel the job (its chunks and probes stop counting and writing: acceptsWork() is
 * false and every worker write requires `processing`), free its slot, settle its usage (what it
 * counted stays counted, the unused reservation comes back), delete its objects, delete the item. A
 * DELETE interrupted halfway leaves a cancelled job (404 to readers) that the next DELETE finishes.
 */
export async function deleteJob(companyId: string, jobId: string, clock: Clock = systemClock): Promise<void> {
  const now = clock();
  const job = await findJob(companyId, jobId);
  if (!job) throw new NotFoundError(jobNotFoundMessage);
  const left = (await markCancelled(job, now.toISOString())) ?? job.cancelledFrom;
  await releaseSlot(job.companyId, job.slot, job.jobId);
  await settleDeletedJob(job, left, clock);
  await deleteJobObjects(job.companyId, job.jobId);
  await deleteJobItem(job);
  countMetric('JobsDeleted');
}
