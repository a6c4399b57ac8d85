// Completing a job once its last chunk is counted: assemble the results file, move the job to
// completed exactly once, free its slot and hand the completion webhook to the webhook queue.
import { systemClock } from '../../clock';
import { sendMessage } from '../../store/queues';
import type { JobProbeState } from '../../store/jobs/probe-state';
import type { Logger } from '../../log';
import { countMetric } from '../../metrics';
import { assembleResults } from './assemble';
import { allChunksDone } from '../../store/jobs/chunk-accounting';
import { getJobItem, type JobItem } from '../../store/jobs/item';
import { claimAssembly, releaseSlot } from '../../store/jobs/slots-and-leases';
import { markCompleted, markWebhookQueued } from '../../store/jobs/transitions';
import { assemblyLeaseSeconds, jobLimits } from './limits';
import { bulkStatuses, emptyStatistics, type Statistics } from './statuses';
import { countCompletedJob, countedRows } from '../usage';

/** The message the webhook sender consumes (contract with functions/handlers/send-webhook.ts). */
export interface WebhookMessage {
  callbackUrl: string;
  companyId: string;
  jobId: string;
  payload: {
    event: 'bulk_validation.completed';
    jobId: string;
    statistics: Statistics;
    status: 'completed';
    totalEmails: number;
  };
  /** Stable for the job: the receiver's idempotency key across retries and redeliveries. */
  webhookId: string;
}

function webhookMessage(job: JobItem & { callbackUrl: string; statistics: Statistics }): WebhookMessage {
  return {
    callbackUrl: job.callbackUrl,
    companyId: job.companyId,
    jobId: job.jobId,
    payload: {
      event: 'bulk_validation.completed',
      jobId: job.jobId,
      statistics: job.statistics,
      status: 'completed',
      totalEmails: job.totalEmails,
    },
    webhookId: `msg_${job.jobId}`,
  };
}

/**
 * Primary course: when every chunk is counted, claim the assembly, write the results file, mark the job
 * completed (conditional: once), free its slot, enqueue the webhook. Safe to call any number of times,
 * from any chunk: a redelivered message finishes what a crashed run left undone.
 */
export async function completeIfDone(job: JobItem, log: Logger): Promise<void> {
  if (job.status === 'completed') return finishCompleted(job, log);
  if (job.status !== 'processing' || !allChunksDone(job)) return;
  const now = systemClock().getTime();
  if (!(await claimAssembly(job, now, now + assemblyLeaseSeconds * 1000))) return;
  const { key: resultKey, moved } = await assembleResults(job);
  const statistics: Statistics = { ...emptyStatistics(), ...job.counts };
  // duplicates whose own chunk found another status than their first occurrence's
  for (const status of bulkStatuses) statistics[status] += moved[status];
  const totalEmails = Object.values(statistics).reduce((sum, n) => sum + n, 0);
  const completedAt = systemClock().toISOString();
  if (await markCompleted(job, { completedAt, statistics, totalEmails, resultKey }, jobLimits, job)) {
    log.info('bulk job completed', { totalEmails, chunks: job.chunkCount });
    logProbeHealth(job as JobItem & JobProbeState, log);
    countMetric('JobsCompleted');
    await finishCompleted(
      { ...job, status: 'completed', completedAt, statistics, totalEmails, resultKey },
      log,
    );
  }
}

/**
 * The job's probe stage in one line: how many of its probed addresses the mail servers refused "about
 * us" (a listed IP shows here first) and how many could not be probed in time. Nothing without probing.
 */
function logProbeHealth(job: JobItem & JobProbeState, log: Logger): void {
  const probed = job.probeEmails ?? 0;
  if (probed === 0) return;
  const refused = job.blockedEmails ?? 0;
  const unprobed = job.unprobedEmails ?? 0;
  const refusedShare = Math.round((refused / probed) * 1000) / 10;
  const line = `probe stage: ${refused} of ${probed} addresses refused by their server for who we are (${refusedShare}%), ${unprobed} not probed before the deadline`;
  const data = { probeEmails: probed, blockedEmails: refused, refusedShare, unprobedEmails: unprobed };
  // a fifth refused is what the stack's alarm calls unhealthy for the probing IP
  if (refusedShare >= 20 || unprobed > 0) log.warn(line, data);
  else log.info(line, data);
}

/** The steps after the transition, repeated harmlessly when a crash interrupted them. */
async function finishCompleted(job: JobItem, log: Logger): Promise<void> {
  if (await countCompletedJob(job)) log.info('bulk job counted in usage', { validations: countedRows(job) });
  await releaseSlot(job.companyId, job.slot, job.jobId);
  if (job.callbackUrl === undefined || job.webhookQueuedAt !== undefined || job.statistics === undefined)
    return;
  const message = webhookMessage({ ...job, callbackUrl: job.callbackUrl, statistics: job.statistics });
  await sendMessage('webhooks', message);
  await markWebhookQueued(job, systemClock().toISOString());
  log.info('completion webhook queued', { webhookId: message.webhookId });
}

/** Re-reads a job and completes it if it is done (finalize messages, redelivered chunks). */
export async function completeJobById(companyId: string, jobId: string, log: Logger): Promise<void> {
  const job = await getJobItem(companyId, jobId, true);
  if (job) await completeIfDone(job, log);
}
