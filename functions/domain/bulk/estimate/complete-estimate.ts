// An estimate job's processing, once the scan has drawn its sample: validate the sampled rows, project
// their statistics to the whole file, complete the job (no results file, no webhook) and count the
// sampled rows in usage.
import type { Logger } from '../../../log';
import { countMetric } from '../../../metrics';
import { systemClock, type Clock } from '../../../clock';
import { settings } from '../../../settings';
import type { JobItem, ObjectPin } from '../../../store/jobs/item';
import { releaseSlot } from '../../../store/jobs/slots-and-leases';
import {
  completeEstimateJob,
  type EstimateJobItem,
  type EstimateResult,
} from '../../../store/jobs/estimates';
import { countCompletedJob, reserveForJob } from '../../usage';
import { classifyChunk, type ClassifyChunk } from '../classifier';
import type { Dialect } from '../csv/dialect';
import type { SampleOptions } from '../csv/scan';
import { estimateDnsBudgetMs, estimateSampleRows, jobLimits } from '../limits';
import { countStatuses } from '../statuses';
import { classifyRows, countTestAddresses } from '../validate-chunk';
import { projectStatistics } from './projection';
import { seededRandom } from '../../seeded-random';
import { seedOf } from './reservoir';
import type { EstimateTimeline } from './timeline';

export function isEstimateJob(job: JobItem): job is EstimateJobItem & { estimate: true } {
  return (job as EstimateJobItem).estimate === true;
}

/**
 * The job's sample: seeded by its id, so a scan taken over after a crash draws the same rows (or by
 * ESTIMATE_SAMPLE_SEED, so a test knows which rows).
 */
export function estimateSampleOptions(job: Pick<JobItem, 'jobId'>): SampleOptions {
  const seed = settings().ESTIMATE_SAMPLE_SEED ?? seedOf(job.jobId);
  return { size: estimateSampleRows, random: seededRandom(seed) };
}

/** What the scan of an estimate's upload found. */
export interface EstimateScan {
  pin: ObjectPin;
  dialect: Dialect;
  /** Data rows of the file. */
  rows: number;
  /** The sampled rows' email cells (scan.ts ScanResult.sample). */
  sample: (string | undefined)[];
}

export interface EstimateDeps {
  classify?: ClassifyChunk;
  clock?: Clock;
  /** Fails the processing job with a reason (start-processing.ts failDuringScan). */
  fail: (error: string) => Promise<void>;
  /** Marks the steps taken here (./timeline.ts). */
  timeline?: EstimateTimeline;
}

/**
 * Primary course: classify the sample (mailbox probes are not made: a row a probe could change keeps
 * its domain verdict, as an unprobed row of a full job does) while reserving the sampled rows (or
 * failing the job as a full job fails), then complete the job with its projection in one write and
 * count the sampled rows.
 */
export async function completeEstimate(
  job: EstimateJobItem,
  scan: EstimateScan,
  log: Logger,
  deps: EstimateDeps,
): Promise<void> {
  const clock = deps.clock ?? systemClock;
  const classify = deps.classify ?? classifyChunk;
  const { timeline } = deps;
  // Every sampled row gets a verdict: their number is known before the DNS answers, so the
  // reservation's round trips run while the sample's domains resolve.
  const classified = classifyRows(
    scan.sample,
    classify,
    job.companyId,
    undefined,
    clock().getTime() + estimateDnsBudgetMs,
  );
  // handled here too: a rejection while the reservation is awaited is not an unhandled one
  classified.then(() => timeline?.mark('classified')).catch(() => undefined);
  const reservation = await reserveForJob(job, scan.sample.length, clock);
  timeline?.mark('reserved');
  if (!reservation.ok) return deps.fail(reservation.error);
  const { verdicts } = await classified;
  const counts = countStatuses(verdicts.map((verdict) => verdict.status));
  const sampled = verdicts.length;
  const result: EstimateResult = {
    rows: scan.rows,
    sampled,
    statistics: projectStatistics(counts, scan.rows),
  };
  const uncounted = countTestAddresses(scan.sample);
  const done = { completedAt: clock().toISOString(), statistics: counts, totalEmails: sampled };
  const outcome = { pin: scan.pin, dialect: scan.dialect, result, uncounted };
  // the job as the scan started it: saves the completion a read
  const seen = { ...job, status: 'processing' as const };
  if (!(await completeEstimateJob(job, outcome, done, jobLimits, seen)))
    return log.info('estimate no longer processing; dropped');
  timeline?.mark('completed');
  countMetric('JobsCompleted');
  log.info('estimate completed', { rows: scan.rows, sampled, msSinceInvoked: timeline?.sinceInvoked() });
  await finishEstimate({ ...job, ...done, status: 'completed', uncountedEmails: uncounted }, log);
  timeline?.mark('finished');
  timeline?.publish();
}

/**
 * The steps after the estimate completed, repeated harmlessly when a crash cut them short (a
 * redelivered upload event calls this again): count the sampled rows, free the slot. An estimate sends
 * no completion webhook: there is nothing to download; its run sends one.
 */
export async function finishEstimate(job: EstimateJobItem, log: Logger): Promise<void> {
  if (await countCompletedJob(job)) log.info('estimate counted in usage', { validations: job.totalEmails });
  await releaseSlot(job.companyId, job.slot, job.jobId);
}
