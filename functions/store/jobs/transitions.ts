// Bulk job status changes: creation, awaiting_upload -> processing -> completed | failed, and the two
// steps of a DELETE. Every change is one conditional write, in one transaction with the job's day counts
// (day-counts.ts), so duplicate events, redelivered messages and concurrent workers each change a job
// once. The rules (which statuses are counted, how long a job is kept) are domain/bulk's, handed in.
import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { tableName } from '../../clients/dynamodb';
import { countMetric } from '../../metrics';
import { send } from '../dynamodb';
import { jobEntity } from '../entities/jobs';
import { jobKey, jobsOfCompanyInStateIndex, jobsOfCompanyIndex } from '../keys';
import { ttlAttribute } from '../table';
import { utcDay, writeCounted, type CountDelta } from './day-counts';
import {
  getJobItem,
  isCounted,
  jobTtlSeconds,
  type JobItem,
  type JobLimits,
  type JobStatistics,
  type NewJob,
  type StoredJobStatus,
} from './item';

/** A transition that happened is counted for the dashboard's transitions widget. */
async function countedMove(metric: 'JobsStarted' | 'JobsFailed', write: Promise<boolean>): Promise<boolean> {
  const happened = await write;
  if (happened) countMetric(metric);
  return happened;
}
const countedFailure = (write: Promise<boolean>) => countedMove('JobsFailed', write);

export async function putNewJob(job: NewJob, limits: JobLimits): Promise<JobItem> {
  const countDay = utcDay(job.createdAt);
  const input: JobItem = {
    ...jobKey(job.companyId, job.jobId),
    ...jobsOfCompanyIndex(job.companyId, job.createdAt, job.jobId),
    ...jobsOfCompanyInStateIndex(job.companyId, 'awaiting_upload', job.createdAt, job.jobId),
    entity: 'job',
    ...job,
    status: 'awaiting_upload',
    totalEmails: 0,
    processedEmails: 0,
    partKeys: {},
    partBytes: {},
    countDay,
    ttl: jobTtlSeconds(countDay, false, limits),
  };
  const item = jobEntity.item(input);
  const created = await writeCounted(
    job.companyId,
    { Put: { TableName: tableName(), Item: item, ConditionExpression: 'attribute_not_exists(pk)' } },
    [{ day: countDay, status: 'awaiting_upload', by: 1 }],
  );
  if (!created) throw new Error(`Job ${job.jobId} exists already`);
  return input;
}

/** A job status change: the write `moveJob` makes once it knows the job's current status. */
interface Move {
  from: readonly StoredJobStatus[];
  to: StoredJobStatus;
  /** SET clauses besides the status (may use `names` and `values`). */
  set?: string[];
  remove?: string[];
  names?: Record<string, string>;
  values?: Record<string, unknown>;
  /** What must hold besides the status, given the status the job is in. */
  also?: (from: StoredJobStatus) => string | undefined;
  /** The day the job counts in afterwards (completion: its completion day); default where it is. */
  toDay?: string;
  /** The job's TTL afterwards, given that day. */
  ttl?: (day: string) => number;
}

/** What `moveJob` needs to know of the job it moves. */
type SeenJob = Pick<JobItem, 'jobId' | 'status' | 'countDay' | 'createdAt'>;

/**
 * Moves a job from one of `move.from` to `move.to` in one transaction with its day counts (a job from
 * before the counts, in one plain conditional write). The transaction is conditioned on the status the
 * job was read in, so the count taken from is the right one; when another write moved the job first,
 * it reads again and retries. Returns the status the job left, or undefined when it was in none of
 * `move.from` (or the rest of the condition did not hold).
 */
async function moveJob(
  job: Pick<JobItem, 'companyId' | 'jobId'>,
  move: Move,
  seen?: SeenJob,
): Promise<StoredJobStatus | undefined> {
  // a caller that has just read or written the job saves the read: a stale copy fails the condition
  let current: SeenJob | undefined = seen ?? (await getJobItem(job.companyId, job.jobId, true));
  for (let attempt = 0; attempt < 10 && current; attempt++) {
    if (!move.from.includes(current.status)) return undefined;
    const names: Record<string, string> = { '#status': 'status', ...move.names };
    const values: Record<string, unknown> = { ':to': move.to, ':seen': current.status, ...move.values };
    const conditions = ['#status = :seen'];
    const also = move.also?.(current.status);
    if (also) conditions.push(`(${also})`);
    const sets = ['#status = :to', ...(move.set ?? [])];
    const removes = [...(move.remove ?? [])];
    // The job's entry in the per-state index moves with it; a cancelled job leaves the index.
    if (move.to === 'cancelled') removes.push('gsi2pk', 'gsi2sk');
    else {
      const state = jobsOfCompanyInStateIndex(job.companyId, move.to, current.createdAt, current.jobId);
      sets.push('gsi2pk = :g2pk', 'gsi2sk = :g2sk');
      values[':g2pk'] = state.gsi2pk;
      values[':g2sk'] = state.gsi2sk;
    }
    const deltas: CountDelta[] = [];
    const day = current.countDay;
    const toDay = move.toDay ?? day;
    if (move.ttl && toDay !== undefined) {
      sets.push('#ttl = :ttl');
      names['#ttl'] = ttlAttribute;
      values[':ttl'] = move.ttl(toDay);
    }
    if (day !== undefined && toDay !== undefined) {
      conditions.push('countDay = :day');
      values[':day'] = day;
      if (toDay !== day) {
        sets.push('countDay = :toDay');
        values[':toDay'] = toDay;
      }
      if (isCounted(current.status)) deltas.push({ day, status: current.status, by: -1 });
      if (isCounted(move.to)) deltas.push({ day: toDay, status: move.to, by: 1 });
    } else {
      conditions.push('attribute_not_exists(countDay)');
    }
    const update = {
      TableName: tableName(),
      Key: jobKey(job.companyId, job.jobId),
      UpdateExpression: `SET ${sets.join(', ')}${removes.length ? ` REMOVE ${removes.join(', ')}` : ''}`,
      ConditionExpression: conditions.join(' AND '),
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    };
    if (await writeCounted(job.companyId, { Update: update }, deltas)) return current.status;
    const after = await getJobItem(job.companyId, job.jobId, true);
    // Same status and day: the rest of the condition was what failed.
    if (!after || (after.status === current.status && after.countDay === current.countDay)) return undefined;
    current = after;
  }
  return undefined;
}

const moved = async (move: Promise<StoredJobStatus | undefined>): Promise<boolean> =>
  (await move) !== undefined;

/** awaiting_upload -> processing, exactly once: false when the job was not awaiting its upload. */
export function markProcessing(
  job: Pick<JobItem, 'companyId' | 'jobId'>,
  at: { now: string; deadlineAtMs: number; scanLeaseUntilMs: number },
): Promise<boolean> {
  return countedMove(
    'JobsStarted',
    moved(
      moveJob(job, {
        from: ['awaiting_upload'],
        to: 'processing',
        set: [
          'startedAt = :now',
          'lastProgressAt = :now',
          'deadlineAtMs = :deadline',
          'scanLeaseUntilMs = :lease',
        ],
        values: { ':now': at.now, ':deadline': at.deadlineAtMs, ':lease': at.scanLeaseUntilMs },
      }),
    ),
  );
}

/** Attributes a caller writes in the same write as a status change, and what must hold for it. */
export interface AlsoWrite {
  set: string[];
  /** Its placeholders start with `:x` so they never meet the change's own. */
  values: Record<string, unknown>;
  condition?: string;
}

/**
 * processing -> completed, exactly once; false when the job was not processing.
 * @param seen the job as the caller last read or wrote it (saves moveJob's read)
 * @param also more to write in the same write (an estimate's outcome, estimates.ts)
 */
export function markCompleted(
  job: Pick<JobItem, 'companyId' | 'jobId'>,
  // no resultKey: an estimate, which has no results file (estimates.ts)
  done: { completedAt: string; statistics: JobStatistics; totalEmails: number; resultKey?: string },
  limits: JobLimits,
  seen?: SeenJob,
  also?: AlsoWrite,
): Promise<boolean> {
  return moved(
    moveJob(
      job,
      {
        from: ['processing'],
        to: 'completed',
        set: [
          'completedAt = :at',
          'statistics = :stats',
          'totalEmails = :total',
          'processedEmails = :total',
          ...(done.resultKey === undefined ? [] : ['resultKey = :key']),
          ...(also?.set ?? []),
        ],
        remove: ['assemblyLeaseUntilMs', 'scanLeaseUntilMs'],
        values: {
          ':at': done.completedAt,
          ':stats': done.statistics,
          ':total': done.totalEmails,
          ...(done.resultKey === undefined ? {} : { ':key': done.resultKey }),
          ...also?.values,
        },
        ...(also?.condition ? { also: () => also.condition } : {}),
        toDay: utcDay(done.completedAt),
        ttl: (day) => jobTtlSeconds(day, true, limits),
      },
      seen,
    ),
  );
}

/**
 * Fails a job that is in one of `from`; false when it was not.
 * @param deadlinePassedAtMs only fail when the job's processing deadline is at or before this instant
 */
export function markFailed(
  job: Pick<JobItem, 'companyId' | 'jobId'>,
  error: string,
  from: StoredJobStatus[],
  at: string,
  deadlinePassedAtMs?: number,
): Promise<boolean> {
  const values: Record<string, unknown> = { ':error': error, ':at': at };
  if (deadlinePassedAtMs !== undefined) values[':deadline'] = deadlinePassedAtMs;
  return countedFailure(
    moved(
      moveJob(job, {
        from,
        to: 'failed',
        set: ['#error = :error', 'failedAt = :at'],
        names: { '#error': 'error' },
        values,
        also: () => (deadlinePassedAtMs === undefined ? undefined : 'deadlineAtMs <= :deadline'),
      }),
    ),
  );
}

/**
 * Fails a job whose start never finished: still awaiting its upload, or processing without a recorded
 * scan (a job whose scan was recorded is progressing through its chunks and is left alone).
 */
export function markStartFailed(
  job: Pick<JobItem, 'companyId' | 'jobId'>,
  error: string,
  at: string,
): Promise<boolean> {
  return countedFailure(
    moved(
      moveJob(job, {
        from: ['awaiting_upload', 'processing'],
        to: 'failed',
        set: ['#error = :error', 'failedAt = :at'],
        names: { '#error': 'error' },
        values: { ':error': error, ':at': at },
        also: (status) => (status === 'processing' ? 'attribute_not_exists(chunkCount)' : undefined),
      }),
    ),
  );
}

/** Notes that the completion webhook was handed to the webhook queue. */
export async function markWebhookQueued(
  job: Pick<JobItem, 'companyId' | 'jobId'>,
  at: string,
): Promise<void> {
  await send(
    new UpdateCommand({
      TableName: tableName(),
      Key: jobKey(job.companyId, job.jobId),
      UpdateExpression: 'SET webhookQueuedAt = :at',
      ExpressionAttributeValues: { ':at': at },
    }),
  );
}

/**
 * The first step of a DELETE: any state -> cancelled. From here on acceptsWork() is false for the job
 * and every conditional write of the bulk workers (which all require `processing`) fails. Returns the
 * status the job had (it leaves the counts), or undefined when it was already cancelled or is gone.
 */
export async function markCancelled(
  job: Pick<JobItem, 'companyId' | 'jobId'>,
  at: string,
): Promise<StoredJobStatus | undefined> {
  return moveJob(job, {
    from: ['awaiting_upload', 'processing', 'completed', 'failed'],
    to: 'cancelled',
    set: ['cancelledAt = :at', 'cancelledFrom = :seen'],
    values: { ':at': at },
  });
}

/** The last step of a DELETE: the job item goes. */
export async function deleteJob(job: Pick<JobItem, 'companyId' | 'jobId'>): Promise<void> {
  await send(new DeleteCommand({ TableName: tableName(), Key: jobKey(job.companyId, job.jobId) }));
}
