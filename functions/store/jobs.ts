// Bulk job items and active-job slots in the single table: their keys, reads, writes and conditions.
// Every state change is one conditional write (a transaction with the job's day counts, job-counts.ts),
// so duplicate events, redelivered messages and concurrent workers each change a job once. The rules
// (how many active jobs, how long a job is kept, which statuses are counted) are domain/bulk's, handed
// in as values (JobLimits, a new job's zeroed counts).
import { BatchGetCommand, DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { tableName } from '../clients/dynamodb';
import { countMetric } from '../metrics';
import { ifConditionHolds, queryAll, queryPages, scanPages, send, wroteIf } from './dynamodb';
import {
  countedStatuses,
  dayEndMs,
  markJobCountsBackfilled,
  readJobCounts,
  utcDay,
  writeCounted,
  type CountDelta,
  type CountedStatus,
  type StoredJobCounts,
} from './job-counts';
import {
  jobKey,
  jobsOfCompanyInStateIndex,
  jobsOfCompanyIndex,
  jobSlotKey,
  jobSlotPrefix,
  type ItemKey,
} from './keys';
import type { JobEstimateState } from './job-estimates';
import type { JobProbeState } from './probe-batches';
import { epochSeconds, tableKeys, ttlAttribute } from './table';

/**
 * The bulk rules the table applies to jobs, decided in domain/bulk/limits.ts (`jobLimits`) and handed
 * to the writes that need them.
 */
export interface JobLimits {
  /** Active-job slots per company. */
  activeJobs: number;
  /** Seconds an unfinished job is kept after the end of its creation day, and a slot after its claim. */
  unfinishedKeptSeconds: number;
  /** Seconds a completed job is kept after the end of its completion day. */
  completedKeptSeconds: number;
}

/**
 * A count per bulk status (the five of spec part 1, always all five keys): a job's running counts and
 * its final statistics, stored as they are (domain/bulk/statuses.ts names this shape `Statistics`).
 */
export type JobStatistics = Record<
  'safe' | 'block_bounce_risk' | 'some_risk' | 'dead_email' | 'do_not_mail_abuse',
  number
>;

/**
 * The CSV dialect the scan decided (domain/bulk/csv/dialect.ts `Dialect`), as the job stores it and its
 * readers (the status view, the results variants) read it back.
 */
export interface StoredDialect {
  delimiter: string;
  encoding: string;
  hasHeader: boolean;
  headerStart?: number;
  dataStart: number;
}

/**
 * Stored states; `expired` is derived on read from `uploadExpiresAtMs` (docs/api.md) and from
 * `completedAt` (results retention). `cancelled` is only ever seen between the two steps of a DELETE:
 * every bulk worker checks acceptsWork() and every conditional write requires `processing`, so a
 * cancelled job's chunks stop counting and writing.
 */
export type StoredJobStatus = 'awaiting_upload' | 'processing' | 'completed' | 'failed' | 'cancelled';

/** The object a job processes, pinned when the scan read it so a second PUT cannot change it. */
export interface ObjectPin {
  key: string;
  etag: string;
  versionId?: string;
  size: number;
}

export interface JobItem extends ItemKey {
  entity: 'job';
  jobId: string;
  companyId: string;
  status: StoredJobStatus;
  emailColumn: number;
  fileName?: string;
  callbackUrl?: string;
  createdAt: string;
  uploadExpiresAtMs: number;
  /** The active-job slot this job holds (jobSlotKey). */
  slot: number;
  totalEmails: number;
  /** Rows usage never counts (test addresses), added to by each chunk; absent: none. */
  uncountedEmails?: number;
  processedEmails: number;
  /** Running per-status counts, added to by each chunk. */
  counts: JobStatistics;
  /** Chunk index -> the part object of the attempt that counted, and its size. */
  partKeys: Record<string, string>;
  partBytes: Record<string, number>;
  doneChunks?: Set<number>;
  chunkCount?: number;
  startedAt?: string;
  deadlineAtMs?: number;
  lastProgressAt?: string;
  scanLeaseUntilMs?: number;
  assemblyLeaseUntilMs?: number;
  pin?: ObjectPin;
  dialect?: StoredDialect;
  completedAt?: string;
  statistics?: JobStatistics;
  resultKey?: string;
  error?: string;
  webhookQueuedAt?: string;
  /**
   * The UTC day whose counts hold this job (store/job-counts.ts): its creation day, its completion day
   * once completed. Absent on jobs created before the counts, until the backfill adds them.
   */
  countDay?: string;
  /** The status a DELETE cancelled the job from (so a DELETE finishing an interrupted one knows it). */
  cancelledFrom?: StoredJobStatus;
  ttl?: number;
  gsi1pk?: string;
  gsi1sk?: string;
  gsi2pk?: string;
  gsi2sk?: string;
}

/**
 * The one check every bulk worker (scan, chunk validation, probes, assembly) makes before it spends
 * work on a job or writes for it: the job exists and is processing. A deleted or cancelled job fails it.
 */
export function acceptsWork(job: JobItem | undefined): job is JobItem {
  return job !== undefined && job.status === 'processing';
}

/** A job as its creation gives it; `counts` has every status at zero (domain/bulk/statuses.ts). */
export type NewJob = Pick<
  JobItem,
  | 'jobId'
  | 'companyId'
  | 'emailColumn'
  | 'fileName'
  | 'callbackUrl'
  | 'createdAt'
  | 'uploadExpiresAtMs'
  | 'slot'
  | 'counts'
>;

/** Runs a conditional write; false when its condition did not hold. */
const conditional = (command: PutCommand | UpdateCommand | DeleteCommand): Promise<boolean> =>
  wroteIf(send(command));

/** A transition that happened is counted for the dashboard's transitions widget. */
async function countedMove(metric: 'JobsStarted' | 'JobsFailed', write: Promise<boolean>): Promise<boolean> {
  const happened = await write;
  if (happened) countMetric(metric);
  return happened;
}
const countedFailure = (write: Promise<boolean>) => countedMove('JobsFailed', write);

export async function getJobItem(
  companyId: string,
  jobId: string,
  consistent = false,
): Promise<JobItem | undefined> {
  const out = await send<{ Item?: Record<string, unknown> }>(
    new GetCommand({ TableName: tableName(), Key: jobKey(companyId, jobId), ConsistentRead: consistent }),
  );
  const item = out.Item;
  return item && item.entity === 'job' ? (item as unknown as JobItem) : undefined;
}

/**
 * When DynamoDB's TTL removes a job (and the list stops showing it): whole UTC days, so that the day
 * counts of job-counts.ts drop a day's jobs at the same instant. An unfinished job goes
 * `unfinishedKeptSeconds` after its creation day; a completed one `completedKeptSeconds` after its
 * completion day.
 */
function jobTtlSeconds(countDay: string, completed: boolean, limits: JobLimits): number {
  const keptSeconds = completed ? limits.completedKeptSeconds : limits.unfinishedKeptSeconds;
  return Math.floor(dayEndMs(countDay) / 1000) + keptSeconds;
}

const isCounted = (status: StoredJobStatus): status is CountedStatus =>
  (countedStatuses as readonly string[]).includes(status);

export async function putNewJob(job: NewJob, limits: JobLimits): Promise<JobItem> {
  const countDay = utcDay(job.createdAt);
  const item: JobItem = {
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
  const created = await writeCounted(
    job.companyId,
    { Put: { TableName: tableName(), Item: item, ConditionExpression: 'attribute_not_exists(pk)' } },
    [{ day: countDay, status: 'awaiting_upload', by: 1 }],
  );
  if (!created) throw new Error(`Job ${job.jobId} exists already`);
  return item;
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
): Promise<StoredJobStatus | undefined> {
  let current = await getJobItem(job.companyId, job.jobId, true);
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

// --- Active-job slots ----------------------------------------------------------------------------

/**
 * Claims a free slot for a job: a slot that was never used, was released, or whose `holdUntilMs` has
 * passed (an upload URL that expired unused frees its slot at that instant, with no sweeper). Each
 * claim is one conditional put, so at most `limits.activeJobs` jobs hold slots whatever the concurrency.
 * @returns the slot, or undefined when all are held
 */
export async function claimSlot(
  companyId: string,
  jobId: string,
  holdUntilMs: number,
  nowMs: number,
  limits: JobLimits,
): Promise<number | undefined> {
  // Start at a random slot so concurrent creations spread over the slots instead of all racing for 0.
  const first = Math.floor(Math.random() * limits.activeJobs);
  for (let n = 0; n < limits.activeJobs; n++) {
    const slot = (first + n) % limits.activeJobs;
    const claimed = await conditional(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...jobSlotKey(companyId, slot),
          entity: 'jobSlot',
          jobId,
          holdUntilMs,
          ttl: epochSeconds() + limits.unfinishedKeptSeconds,
        },
        ConditionExpression: 'attribute_not_exists(pk) OR holdUntilMs <= :now',
        ExpressionAttributeValues: { ':now': nowMs },
      }),
    );
    if (claimed) return slot;
  }
  return undefined;
}

/** Keeps the job's slot until `holdUntilMs`; false when the slot is no longer the job's. */
export function holdSlot(
  companyId: string,
  slot: number,
  jobId: string,
  holdUntilMs: number,
): Promise<boolean> {
  return conditional(
    new UpdateCommand({
      TableName: tableName(),
      Key: jobSlotKey(companyId, slot),
      UpdateExpression: 'SET holdUntilMs = :until',
      ConditionExpression: 'jobId = :jobId',
      ExpressionAttributeValues: { ':until': holdUntilMs, ':jobId': jobId },
    }),
  );
}

/** Frees the job's slot (idempotent; a slot already taken by another job is left alone). */
export async function releaseSlot(companyId: string, slot: number, jobId: string): Promise<void> {
  await conditional(
    new DeleteCommand({
      TableName: tableName(),
      Key: jobSlotKey(companyId, slot),
      ConditionExpression: 'jobId = :jobId',
      ExpressionAttributeValues: { ':jobId': jobId },
    }),
  );
}

// --- Transitions ---------------------------------------------------------------------------------

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

/**
 * Takes over the scan of a processing job whose scan never recorded its result (the first run crashed
 * and its lease ran out, or releaseOrphanedLeases voided it); false when the scan is done or another run
 * holds the lease. A missing lease is a free one: `scanLeaseUntilMs < :now` alone is false for a removed
 * attribute, which left a job killed mid-scan unscannable after a local restart.
 */
export function takeScanLease(
  job: Pick<JobItem, 'companyId' | 'jobId'>,
  nowMs: number,
  leaseUntilMs: number,
): Promise<boolean> {
  return claimLease(
    job,
    'scanLeaseUntilMs',
    'attribute_not_exists(chunkCount) AND (attribute_not_exists(scanLeaseUntilMs) OR scanLeaseUntilMs < :now)',
    nowMs,
    leaseUntilMs,
  );
}

/** Records the scan's outcome; the job as it is now, or undefined when it is no longer processing. */
export async function recordScan(
  job: Pick<JobItem, 'companyId' | 'jobId'>,
  scan: { pin: ObjectPin; dialect: StoredDialect; chunkCount: number; totalEmails: number },
): Promise<JobItem | undefined> {
  const out = await ifConditionHolds(
    send<{ Attributes?: Record<string, unknown> }>(
      new UpdateCommand({
        TableName: tableName(),
        Key: jobKey(job.companyId, job.jobId),
        UpdateExpression: 'SET pin = :pin, dialect = :dialect, chunkCount = :chunks, totalEmails = :total',
        ConditionExpression: '#status = :processing',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':processing': 'processing',
          ':pin': scan.pin,
          ':dialect': scan.dialect,
          ':chunks': scan.chunkCount,
          ':total': scan.totalEmails,
        },
        ReturnValues: 'ALL_NEW',
      }),
    ),
  );
  return out?.Attributes as JobItem | undefined;
}

export interface ChunkOutcome {
  index: number;
  counts: JobStatistics;
  partKey: string;
  partBytes: number;
  /** Of the chunk's rows, those usage never counts (test addresses). */
  uncounted?: number;
}

/**
 * Adds one chunk's counts to its job, at most once per chunk index: the index joins the job's
 * `doneChunks` set in the same single-item update, conditioned on not being in it yet. (One item and
 * one write, so concurrent validators of the same job never meet a TransactionConflict.)
 * @returns the job after the update, or undefined when the chunk was already counted or the job is no
 *   longer processing
 */
export async function recordChunk(
  job: Pick<JobItem, 'companyId' | 'jobId'>,
  chunk: ChunkOutcome,
  now: string,
): Promise<JobItem | undefined> {
  const names: Record<string, string> = {
    '#status': 'status',
    '#counts': 'counts',
    '#i': String(chunk.index),
  };
  const values: Record<string, unknown> = {
    ':processing': 'processing',
    ':idx': chunk.index,
    ':set': new Set([chunk.index]),
    ':key': chunk.partKey,
    ':bytes': chunk.partBytes,
    ':now': now,
  };
  const sets = ['partKeys.#i = :key', 'partBytes.#i = :bytes', 'lastProgressAt = :now'];
  let processed = 0;
  Object.entries(chunk.counts).forEach(([status, count], n) => {
    names[`#s${n}`] = status;
    values[`:c${n}`] = count;
    sets.push(`#counts.#s${n} = #counts.#s${n} + :c${n}`);
    processed += count;
  });
  values[':processed'] = processed;
  sets.push('processedEmails = processedEmails + :processed');
  if (chunk.uncounted) {
    values[':uncounted'] = chunk.uncounted;
    values[':zero'] = 0;
    sets.push('uncountedEmails = if_not_exists(uncountedEmails, :zero) + :uncounted');
  }
  const out = await ifConditionHolds(
    send<{ Attributes?: Record<string, unknown> }>(
      new UpdateCommand({
        TableName: tableName(),
        Key: jobKey(job.companyId, job.jobId),
        UpdateExpression: `SET ${sets.join(', ')} ADD doneChunks :set`,
        ConditionExpression: '#status = :processing AND NOT contains(doneChunks, :idx)',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    ),
  );
  return out?.Attributes as JobItem | undefined;
}

/** True when every chunk of the job is counted (and the scan has said how many there are). */
export function allChunksDone(job: JobItem): boolean {
  return job.chunkCount !== undefined && (job.doneChunks?.size ?? 0) >= job.chunkCount;
}

/** Claims the assembly of the results file; false when another run holds it or the job moved on. */
export function claimAssembly(
  job: Pick<JobItem, 'companyId' | 'jobId'>,
  nowMs: number,
  leaseUntilMs: number,
): Promise<boolean> {
  return claimLease(
    job,
    'assemblyLeaseUntilMs',
    '(attribute_not_exists(assemblyLeaseUntilMs) OR assemblyLeaseUntilMs < :now)',
    nowMs,
    leaseUntilMs,
  );
}

/**
 * Ends the scan and assembly leases of every processing job, so a redelivered message can take the work
 * over at once. Only for a runtime that knows no worker of an earlier process is alive (the local runtime
 * starting after a crash: the holders died with that process). Returns how many jobs had one.
 */
export async function releaseOrphanedLeases(): Promise<number> {
  let released = 0;
  const pages = scanPages({
    FilterExpression:
      'entity = :job AND #status = :processing AND (attribute_exists(scanLeaseUntilMs) OR attribute_exists(assemblyLeaseUntilMs))',
    ProjectionExpression: '#pk, #sk',
    ExpressionAttributeNames: { '#status': 'status', '#pk': tableKeys.partition, '#sk': tableKeys.sort },
    ExpressionAttributeValues: { ':job': 'job', ':processing': 'processing' },
  });
  for await (const page of pages) {
    for (const key of page) {
      const done = await conditional(
        new UpdateCommand({
          TableName: tableName(),
          Key: key,
          UpdateExpression: 'REMOVE scanLeaseUntilMs, assemblyLeaseUntilMs',
          ConditionExpression: '#status = :processing',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':processing': 'processing' },
        }),
      );
      if (done) released += 1;
    }
  }
  return released;
}

/** Sets a lease attribute on a processing job when `condition` (which may use :now) holds. */
function claimLease(
  job: Pick<JobItem, 'companyId' | 'jobId'>,
  leaseAttribute: 'scanLeaseUntilMs' | 'assemblyLeaseUntilMs',
  condition: string,
  nowMs: number,
  leaseUntilMs: number,
): Promise<boolean> {
  return conditional(
    new UpdateCommand({
      TableName: tableName(),
      Key: jobKey(job.companyId, job.jobId),
      UpdateExpression: `SET ${leaseAttribute} = :lease`,
      ConditionExpression: `#status = :processing AND ${condition}`,
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':processing': 'processing', ':now': nowMs, ':lease': leaseUntilMs },
    }),
  );
}

/** processing -> completed, exactly once; false when the job was not processing. */
export function markCompleted(
  job: Pick<JobItem, 'companyId' | 'jobId'>,
  // no resultKey: an estimate, which has no results file (store/job-estimates.ts)
  done: { completedAt: string; statistics: JobStatistics; totalEmails: number; resultKey?: string },
  limits: JobLimits,
): Promise<boolean> {
  return moved(
    moveJob(job, {
      from: ['processing'],
      to: 'completed',
      set: [
        'completedAt = :at',
        'statistics = :stats',
        'totalEmails = :total',
        'processedEmails = :total',
        ...(done.resultKey === undefined ? [] : ['resultKey = :key']),
      ],
      remove: ['assemblyLeaseUntilMs', 'scanLeaseUntilMs'],
      values: {
        ':at': done.completedAt,
        ':stats': done.statistics,
        ':total': done.totalEmails,
        ...(done.resultKey === undefined ? {} : { ':key': done.resultKey }),
      },
      toDay: utcDay(done.completedAt),
      ttl: (day) => jobTtlSeconds(day, true, limits),
    }),
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

// --- Listing and deletion ------------------------------------------------------------------------

/** The attributes a job list item needs (the view's fields and the file name). */
const listedAttributes = [
  'jobId',
  'companyId',
  '#status',
  'totalEmails',
  'processedEmails',
  'chunkCount',
  'createdAt',
  'completedAt',
  'statistics',
  '#error',
  'fileName',
  'uploadExpiresAtMs',
  'deadlineAtMs',
  'dialect',
  'doneChunks',
  'probeUnits',
  'probeProgress',
  'unprobedEmails',
  'probeFinishExpectedAtMs',
  'estimate',
  'estimateResult',
  'runJobId',
];

/**
 * What the job list reads of a job (`listedAttributes`): what the status view needs (domain/bulk/job-view.ts
 * ViewedJob), plus the owner and the file name.
 */
export type ListedJob = Pick<
  JobItem,
  | 'jobId'
  | 'companyId'
  | 'status'
  | 'totalEmails'
  | 'processedEmails'
  | 'chunkCount'
  | 'createdAt'
  | 'completedAt'
  | 'statistics'
  | 'error'
  | 'fileName'
  | 'uploadExpiresAtMs'
  | 'deadlineAtMs'
  | 'dialect'
  | 'doneChunks'
> &
  Pick<JobProbeState, 'probeUnits' | 'probeProgress' | 'unprobedEmails' | 'probeFinishExpectedAtMs'> &
  Pick<JobEstimateState, 'estimate' | 'estimateResult' | 'runJobId'>;

/**
 * The company's jobs, newest first, one index page at a time (gsi1, sorted by creation time); the
 * caller stops iterating once it has what it needs. `pageSize` items are read per page, so a page of
 * the list costs about the items up to offset + limit. A job past its TTL that DynamoDB has not removed
 * yet is skipped, as the day counts have already dropped it.
 */
export async function* companyJobsNewestFirst(
  companyId: string,
  storedStatuses: readonly StoredJobStatus[],
  nowMs: number,
  pageSize: number,
): AsyncGenerator<ListedJob> {
  const values: Record<string, unknown> = {
    ':pk': jobsOfCompanyIndex(companyId).gsi1pk,
    ':now': Math.floor(nowMs / 1000),
  };
  const statuses = storedStatuses.map((status, n) => {
    values[`:s${n}`] = status;
    return `:s${n}`;
  });
  const pages = queryPages({
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    ScanIndexForward: false,
    Limit: pageSize,
    ProjectionExpression: listedAttributes.join(', '),
    FilterExpression: `#status IN (${statuses.join(', ')}) AND (attribute_not_exists(#ttl) OR #ttl > :now)`,
    ExpressionAttributeNames: { '#status': 'status', '#error': 'error', '#ttl': ttlAttribute },
    ExpressionAttributeValues: values,
  });
  for await (const page of pages) for (const item of page) yield item as unknown as ListedJob;
}

/** One stored state to list from the per-state index, optionally only jobs created before `before`. */
export interface StateRange {
  state: StoredJobStatus;
  /** An ISO instant: only jobs created before it. */
  createdBefore?: string;
}

/**
 * The company's jobs in the given stored states, newest first: one Query per state on its per-state
 * index (gsi2), merged by creation time. Each state's read goes no further than the caller iterates,
 * so a page filtered by `status` costs about the jobs shown plus the few that read otherwise (active
 * jobs, results retention's boundary), not every job of the company.
 */
export async function* companyJobsInStatesNewestFirst(
  companyId: string,
  ranges: readonly StateRange[],
  nowMs: number,
  pageSize: number,
): AsyncGenerator<ListedJob> {
  const streams = ranges.map((range) => stateJobs(companyId, range, nowMs, pageSize));
  const heads = await Promise.all(streams.map((stream) => stream.next()));
  for (;;) {
    let newest: number | undefined;
    let newestKey = '';
    heads.forEach((head, n) => {
      if (head.done) return;
      const key = head.value.gsi2sk ?? '';
      if (newest === undefined || key > newestKey) [newest, newestKey] = [n, key];
    });
    if (newest === undefined) return;
    const head = heads[newest]!;
    if (!head.done) yield head.value;
    heads[newest] = await streams[newest]!.next();
  }
}

type IndexedJob = ListedJob & { gsi2sk?: string };

async function* stateJobs(
  companyId: string,
  range: StateRange,
  nowMs: number,
  pageSize: number,
): AsyncGenerator<IndexedJob> {
  const values: Record<string, unknown> = {
    ':pk': jobsOfCompanyInStateIndex(companyId, range.state).gsi2pk,
    ':now': Math.floor(nowMs / 1000),
  };
  let keyCondition = 'gsi2pk = :pk';
  if (range.createdBefore !== undefined) {
    keyCondition += ' AND gsi2sk < :before';
    values[':before'] = range.createdBefore;
  }
  const pages = queryPages({
    IndexName: 'gsi2',
    KeyConditionExpression: keyCondition,
    ScanIndexForward: false,
    Limit: pageSize,
    ProjectionExpression: [...listedAttributes, 'gsi2sk'].join(', '),
    FilterExpression: 'attribute_not_exists(#ttl) OR #ttl > :now',
    ExpressionAttributeNames: { '#status': 'status', '#error': 'error', '#ttl': ttlAttribute },
    ExpressionAttributeValues: values,
  });
  for await (const page of pages) for (const item of page) yield item as unknown as IndexedJob;
}

// --- Counts --------------------------------------------------------------------------------------

/** The first day whose counts can still hold a listed job (completed jobs are kept longest). */
const firstCountedDay = (nowMs: number, limits: JobLimits): string =>
  utcDay(nowMs - (limits.completedKeptSeconds + 86400) * 1000);

/**
 * The company's day counts (one Query), after adding the jobs created before the counts existed the
 * first time they are read.
 */
export async function readCompanyJobCounts(
  companyId: string,
  nowMs: number,
  limits: JobLimits,
): Promise<StoredJobCounts> {
  const counts = await readJobCounts(companyId, firstCountedDay(nowMs, limits));
  if (counts.backfilled) return counts;
  await backfillJobCounts(companyId, limits);
  await markJobCountsBackfilled(companyId, new Date(nowMs).toISOString());
  return readJobCounts(companyId, firstCountedDay(nowMs, limits));
}

/**
 * Adds every job without a count day to the counts (once per company, before its first count read):
 * each job in one transaction with its day item, conditioned on its status and on having no count day,
 * so a transition or another backfill running at the same time never counts it twice. Its TTL moves to
 * the end of its day like every counted job's. Reads the whole index once; only jobs from before the
 * counts are written.
 */
async function backfillJobCounts(companyId: string, limits: JobLimits): Promise<void> {
  const legacy = await queryAll({
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    FilterExpression: 'attribute_not_exists(countDay)',
    ProjectionExpression: 'jobId',
    ExpressionAttributeValues: { ':pk': jobsOfCompanyIndex(companyId).gsi1pk },
  });
  for (const { jobId } of legacy) {
    for (let attempt = 0; attempt < 10; attempt++) {
      const job = await getJobItem(companyId, String(jobId), true);
      if (!job || job.countDay !== undefined) break;
      const completed = job.status === 'completed' && job.completedAt !== undefined;
      const day = utcDay(completed ? job.completedAt! : job.createdAt);
      const state = jobsOfCompanyInStateIndex(companyId, job.status, job.createdAt, job.jobId);
      const indexed = job.status !== 'cancelled';
      const counted = await writeCounted(
        companyId,
        {
          Update: {
            TableName: tableName(),
            Key: jobKey(companyId, job.jobId),
            UpdateExpression: `SET countDay = :day, #ttl = :ttl${indexed ? ', gsi2pk = :g2pk, gsi2sk = :g2sk' : ''}`,
            ConditionExpression: '#status = :seen AND attribute_not_exists(countDay)',
            ExpressionAttributeNames: { '#status': 'status', '#ttl': ttlAttribute },
            ExpressionAttributeValues: {
              ':day': day,
              ':ttl': jobTtlSeconds(day, completed, limits),
              ':seen': job.status,
              ...(indexed ? { ':g2pk': state.gsi2pk, ':g2sk': state.gsi2sk } : {}),
            },
          },
        },
        isCounted(job.status) ? [{ day, status: job.status, by: 1 }] : [],
      );
      if (counted) break;
    }
  }
}

/**
 * The jobs that hold one of the company's active-job slots now (at most five): the only jobs whose
 * status can still change by time alone before their counts' day ends (an upload URL expiring, a
 * processing deadline passing). One Query of the slots and one BatchGet.
 */
export async function slotHoldingJobs(
  companyId: string,
  nowMs: number,
): Promise<(JobItem & JobProbeState)[]> {
  const slots = await queryAll({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': jobSlotKey(companyId, 0).pk, ':prefix': jobSlotPrefix },
    ConsistentRead: true,
  });
  const held = slots.filter((slot) => Number(slot.holdUntilMs) > nowMs).map((slot) => String(slot.jobId));
  if (held.length === 0) return [];
  const out = await send<{ Responses?: Record<string, Record<string, unknown>[]> }>(
    new BatchGetCommand({
      RequestItems: {
        [tableName()]: { Keys: held.map((jobId) => jobKey(companyId, jobId)), ConsistentRead: true },
      },
    }),
  );
  // Five small items never come back as UnprocessedKeys in practice; if they did, those jobs would be
  // read as not active for this one response.
  const jobs = (out.Responses?.[tableName()] ?? []).filter((item) => item.entity === 'job');
  return jobs as unknown as (JobItem & JobProbeState)[];
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
