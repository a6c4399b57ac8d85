// The API's use cases on bulk jobs: create one (within the active-job limit), read its status, and
// describe its results download.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { ConflictError, NotFoundError, TooManyRequestsError } from '../../errors';
import { settings } from '../../settings';
import type { CreateJobRequest } from './create-job-request';
import { claimSlot, getJobItem, markFailed, putNewJob, releaseSlot, type JobItem } from './job-store';
import { deadlineError, effectiveStatus, jobView, type JobView } from './job-view';
import { activeJobsRetryAfterSeconds } from './limits';
import { resultFileName, uploadObjectKey } from './object-keys';
import { presignDownload, presignUpload } from './presign';
import { releaseFailedJob } from '../usage';

export const concurrentJobLimitMessage =
  'Concurrent job limit reached. Complete or wait for existing jobs before creating new ones.';
export const jobNotFoundMessage = 'Job not found';
export const jobNotCompletedMessage = 'Job is not completed';

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
  now = new Date(),
): Promise<CreatedJob> {
  const ttl = settings().UPLOAD_URL_TTL_SECONDS;
  const jobId = randomUUID();
  const uploadExpiresAtMs = now.getTime() + ttl * 1000;
  const slot = await claimSlot(companyId, jobId, uploadExpiresAtMs, now.getTime());
  if (slot === undefined)
    throw new TooManyRequestsError(concurrentJobLimitMessage, activeJobsRetryAfterSeconds);
  try {
    await putNewJob({
      jobId,
      companyId,
      emailColumn: request.emailColumn,
      fileName: request.fileName,
      callbackUrl: request.callbackUrl,
      createdAt: now.toISOString(),
      uploadExpiresAtMs,
      slot,
    });
    const uploadUrl = await presignUpload(uploadObjectKey(companyId, jobId), ttl);
    return { jobId, status: 'awaiting_upload', uploadUrl, uploadExpiresIn: ttl };
  } catch (error) {
    await releaseSlot(companyId, slot, jobId).catch(() => undefined);
    throw error;
  }
}

async function requireJob(companyId: string, jobId: string): Promise<JobItem> {
  // The id is part of a key only after it proved to be a UUID: anything else is simply unknown.
  const job = /^[0-9a-f-]{36}$/i.test(jobId) ? await getJobItem(companyId, jobId) : undefined;
  if (!job) throw new NotFoundError(jobNotFoundMessage);
  return job;
}

export async function readJob(companyId: string, jobId: string, now = new Date()): Promise<JobView> {
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

export async function describeDownload(
  companyId: string,
  jobId: string,
  now = new Date(),
): Promise<DownloadDescriptor> {
  const job = await requireJob(companyId, jobId);
  if (effectiveStatus(job, now.getTime()) !== 'completed' || !job.resultKey)
    throw new ConflictError(jobNotCompletedMessage);
  const ttl = settings().DOWNLOAD_URL_TTL_SECONDS;
  const fileName = resultFileName(job.jobId, job.fileName);
  const downloadUrl = await presignDownload(job.resultKey, fileName, ttl);
  return { jobId: job.jobId, downloadUrl, expiresIn: ttl, fileName, format: 'csv' };
}
