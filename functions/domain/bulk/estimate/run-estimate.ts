// POST /v1/email/validate-file/{jobId}/run: validate the whole upload of a completed estimate as a new
// job, with the estimate's options, without a new upload.
import { randomUUID } from 'node:crypto';
import { ConflictError, GoneError } from '../../../errors';
import { systemClock, type Clock } from '../../../clock';
import { copyObject, objectExists } from '../../../store/bucket';
import { claimRun, releaseRun, type EstimateJobItem } from '../../../store/jobs/estimates';
import { getJobItem } from '../../../store/jobs/item';
import { effectiveStatus } from '../job-view';
import { createJob, jobNotCompletedMessage, requireJob, type CreatedJob } from '../jobs';
import { estimateRunWindowSeconds } from '../limits';
import { uploadObjectKey } from '../object-keys';

export const notAnEstimateMessage =
  'Only an estimate can be run: this job was not created with "estimate": true';
export const alreadyRunMessage = 'This estimate was already run in full; its runJobId is the job running it';
export const estimateFileGoneMessage = `An estimate can be run for ${estimateRunWindowSeconds / 3600} hours after it completes; its file is gone. Create a new job and upload the file again.`;

/**
 * Primary course: the job is this company's completed estimate, within its run window, its upload
 * still there; claim the run on the estimate (409 when it already has one that did not fail), create
 * the run job as any job is created (slot, 429 when none), copy the upload to the run's upload key
 * (the copy's ObjectCreated event starts it like an upload: scan, quota reservation, chunks) and
 * answer the created job. An earlier run that failed, expired or was deleted may be replaced.
 */
export async function runEstimate(
  companyId: string,
  jobId: string,
  clock: Clock = systemClock,
): Promise<CreatedJob> {
  const now = clock();
  const estimate = (await requireJob(companyId, jobId)) as EstimateJobItem;
  if (!estimate.estimate) throw new ConflictError(notAnEstimateMessage);
  if (estimate.status !== 'completed' || !estimate.completedAt)
    throw new ConflictError(jobNotCompletedMessage);
  const windowEndMs = Date.parse(estimate.completedAt) + estimateRunWindowSeconds * 1000;
  const uploadKey = uploadObjectKey(companyId, estimate.jobId);
  if (now.getTime() >= windowEndMs || !(await objectExists(uploadKey)))
    throw new GoneError(estimateFileGoneMessage);

  const earlier = estimate.runJobId;
  if (earlier !== undefined && (await runStillStands(companyId, earlier, now.getTime())))
    throw new ConflictError(alreadyRunMessage);
  const runJobId = randomUUID();
  if (!(await claimRun(estimate, runJobId, earlier))) throw new ConflictError(alreadyRunMessage);
  try {
    const options = {
      emailColumn: estimate.emailColumn,
      fileName: estimate.fileName,
      callbackUrl: estimate.callbackUrl,
    };
    const created = await createJob(companyId, options, () => now, {
      jobId: runJobId,
      estimateJobId: estimate.jobId,
    });
    await copyObject(uploadKey, uploadObjectKey(companyId, runJobId));
    return created;
  } catch (error) {
    // No slot, or the copy failed: the estimate can be run again (an unused run job expires by itself).
    await releaseRun(estimate, runJobId).catch(() => undefined);
    throw error;
  }
}

/** An earlier run counts unless it failed, expired unused or was deleted. */
async function runStillStands(companyId: string, runJobId: string, nowMs: number): Promise<boolean> {
  const run = await getJobItem(companyId, runJobId, true);
  if (!run || run.status === 'cancelled') return false;
  const status = effectiveStatus(run, nowMs);
  return !(status === 'failed' || (status === 'expired' && run.status === 'awaiting_upload'));
}
