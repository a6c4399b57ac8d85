// What clients see of a job (spec 2.1 and decisions.md): the stored state, with `expired` and the
// processing deadline applied at read time so neither waits for a sweeper.
import type { JobItem } from './job-store';
import type { JobProbeState } from './probe-store';
import { processingDeadlineSeconds } from './limits';
import { emptyStatistics, type Statistics } from './statuses';

export type JobStatus = 'awaiting_upload' | 'processing' | 'completed' | 'failed' | 'expired';

export interface JobView {
  jobId: string;
  status: JobStatus;
  totalEmails: number;
  processedEmails: number;
  percentComplete: number;
  createdAt: string;
  completedAt: string | null;
  statistics: Statistics | null;
  error?: string;
}

export const deadlineError = `Processing did not finish within ${processingDeadlineSeconds / 3600} hours. Create a new job and upload the file again; if it happens again, contact support with this job ID.`;

/** The status a job has now: an unused upload URL past its lifetime is `expired`, a job past its processing deadline `failed`. */
export function effectiveStatus(job: JobItem, nowMs: number): JobStatus {
  if (job.status === 'awaiting_upload' && nowMs >= job.uploadExpiresAtMs) return 'expired';
  if (job.status === 'processing' && job.deadlineAtMs !== undefined && nowMs >= job.deadlineAtMs)
    return 'failed';
  return job.status;
}

export function jobView(job: JobItem, nowMs: number): JobView {
  const status = effectiveStatus(job, nowMs);
  // Until the scan has counted the rows, totalEmails is not known; never show processed > total.
  const total = Math.max(job.totalEmails, job.processedEmails);
  const processed = status === 'completed' ? total : job.processedEmails;
  let percent = 0;
  if (status === 'completed') percent = 100;
  else if (job.chunkCount !== undefined && total > 0) {
    // rows handed to the probe stage count twice: classified, then probed (so probing moves the bar)
    const probe = job as JobItem & JobProbeState;
    const work = total + (probe.probeEmails ?? 0);
    const done = processed + (probe.probedEmails ?? 0);
    percent = Math.min(99, Math.floor((done * 100) / work));
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
  };
  if (status === 'failed')
    view.error = job.status === 'failed' ? (job.error ?? deadlineError) : deadlineError;
  return view;
}
