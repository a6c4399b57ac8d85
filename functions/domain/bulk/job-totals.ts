// How many of a company's jobs the list shows in each status, from the stored day counts and the few
// jobs that hold an active-job slot, without reading the jobs themselves.
import { dayEndMs, type DayCounts } from '../../store/jobs/day-counts';
import { effectiveStatus, jobStatuses, type JobStatus, type ViewedJob } from './job-view';
import { expiredJobKeptSeconds, jobRetentionSeconds, resultsRetentionSeconds } from './limits';

export type JobTotals = Record<JobStatus, number>;

/**
 * Counts by effective status (job-view.ts effectiveStatus) at `nowMs`. Day counts suffice because
 * retention is in whole days: a day's jobs read `expired` 30 days after the day ends and leave the
 * list then (unfinished) or 7 days later (completed). Of the stored `awaiting_upload` and `processing`
 * jobs only those holding a slot (`active`, at most five) can still be active; the rest read
 * `expired` or `failed`.
 */
export function jobTotals(days: Map<string, DayCounts>, active: ViewedJob[], nowMs: number): JobTotals {
  const totals = Object.fromEntries(jobStatuses.map((s) => [s, 0])) as JobTotals;
  let storedAwaiting = 0;
  let storedProcessing = 0;
  for (const [day, counts] of days) {
    const end = dayEndMs(day);
    if (nowMs < end + jobRetentionSeconds * 1000) {
      storedAwaiting += counts.awaiting_upload;
      storedProcessing += counts.processing;
      totals.failed += counts.failed;
    }
    if (nowMs < end + resultsRetentionSeconds * 1000) totals.completed += counts.completed;
    else if (nowMs < end + (resultsRetentionSeconds + expiredJobKeptSeconds) * 1000)
      totals.expired += counts.completed;
  }
  for (const job of active) {
    const status = effectiveStatus(job, nowMs);
    if (job.status === 'awaiting_upload' && status === 'awaiting_upload') totals.awaiting_upload++;
    if (job.status === 'processing' && status === 'processing') totals.processing++;
  }
  totals.expired += Math.max(0, storedAwaiting - totals.awaiting_upload);
  totals.failed += Math.max(0, storedProcessing - totals.processing);
  return totals;
}

export const allJobs = (totals: JobTotals): number => jobStatuses.reduce((sum, s) => sum + totals[s], 0);
