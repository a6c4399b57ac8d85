// Bulk job items and active-job slots in the single table. Every state change is one conditional
// write, so duplicate events, redelivered messages and concurrent workers each change a job once.
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { tableName } from '../../clients/dynamodb';
import type { JobProbeState } from './probe-store';
import { jobKey, jobsOfCompanyIndex, jobSlotKey, type ItemKey } from '../../store/keys';
import { epochSeconds, tableKeys } from '../../store/table';
import type { Dialect } from './csv/dialect';
import { jobRetentionSeconds, maxActiveJobs, resultsRetentionSeconds, expiredJobKeptSeconds } from './limits';
import { bulkStatuses, type Statistics } from './statuses';
import { ifConditionHolds, queryPages, scanPages, send, wroteIf } from '../../store/dynamodb';
import { countMetric } from '../../metrics';

/**
 * Stored states; `expired` is derived on read from `uploadExpiresAtMs` (decisions.md) and from
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
  processedEmails: number;
  /** Running per-status counts, added to by each chunk. */
  counts: Statistics;
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
  dialect?: Dialect;
  completedAt?: string;
  statistics?: Statistics;
  resultKey?: string;
  error?: string;
  webhookQueuedAt?: string;
  ttl?: number;
  gsi1pk?: string;
  gsi1sk?: string;
}

/**
 * The one check every bulk worker (scan, chunk validation, probes, assembly) makes before it spends
 * work on a job or writes for it: the job exists and is processing. A deleted or cancelled job fails it.
 */
export function acceptsWork(job: JobItem | undefined): job is JobItem {
  return job !== undefined && job.status === 'processing';
}

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
>;

/** Runs a conditional write; false when its condition did not hold. */
const conditional = (command: PutCommand | UpdateCommand | DeleteCommand): Promise<boolean> =>
  wroteIf(send(command));

/** A transition to failed that happened is counted for the dashboard. */
async function countedFailure(write: Promise<boolean>): Promise<boolean> {
  const failed = await write;
  if (failed) countMetric('JobsFailed');
  return failed;
}

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

export async function putNewJob(job: NewJob): Promise<JobItem> {
  const item: JobItem = {
    ...jobKey(job.companyId, job.jobId),
    ...jobsOfCompanyIndex(job.companyId, job.createdAt, job.jobId),
    entity: 'job',
    ...job,
    status: 'awaiting_upload',
    totalEmails: 0,
    processedEmails: 0,
    counts: Object.fromEntries(bulkStatuses.map((s) => [s, 0])) as Statistics,
    partKeys: {},
    partBytes: {},
    ttl: epochSeconds() + jobRetentionSeconds,
  };
  await send(
    new PutCommand({ TableName: tableName(), Item: item, ConditionExpression: 'attribute_not_exists(pk)' }),
  );
  return item;
}

// --- Active-job slots ----------------------------------------------------------------------------

/**
 * Claims a free slot for a job: a slot that was never used, was released, or whose `holdUntilMs` has
 * passed (an upload URL that expired unused frees its slot at that instant, with no sweeper). Each
 * claim is one conditional put, so at most `maxActiveJobs` jobs hold slots whatever the concurrency.
 * @returns the slot, or undefined when all are held
 */
export async function claimSlot(
  companyId: string,
  jobId: string,
  holdUntilMs: number,
  nowMs: number,
): Promise<number | undefined> {
  // Start at a random slot so concurrent creations spread over the slots instead of all racing for 0.
  const first = Math.floor(Math.random() * maxActiveJobs);
  for (let n = 0; n < maxActiveJobs; n++) {
    const slot = (first + n) % maxActiveJobs;
    const claimed = await conditional(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...jobSlotKey(companyId, slot),
          entity: 'jobSlot',
          jobId,
          holdUntilMs,
          ttl: epochSeconds() + jobRetentionSeconds,
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
  return conditional(
    new UpdateCommand({
      TableName: tableName(),
      Key: jobKey(job.companyId, job.jobId),
      UpdateExpression:
        'SET #status = :processing, startedAt = :now, lastProgressAt = :now, deadlineAtMs = :deadline, scanLeaseUntilMs = :lease',
      ConditionExpression: '#status = :awaiting',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':processing': 'processing',
        ':awaiting': 'awaiting_upload',
        ':now': at.now,
        ':deadline': at.deadlineAtMs,
        ':lease': at.scanLeaseUntilMs,
      },
    }),
  );
}

/**
 * Takes over the scan of a processing job whose scan never recorded its result (the first run crashed
 * and its lease ran out); false when the scan is done or another run holds the lease.
 */
export function takeScanLease(
  job: Pick<JobItem, 'companyId' | 'jobId'>,
  nowMs: number,
  leaseUntilMs: number,
): Promise<boolean> {
  return claimLease(
    job,
    'scanLeaseUntilMs',
    'attribute_not_exists(chunkCount) AND scanLeaseUntilMs < :now',
    nowMs,
    leaseUntilMs,
  );
}

/** Records the scan's outcome; the job as it is now, or undefined when it is no longer processing. */
export async function recordScan(
  job: Pick<JobItem, 'companyId' | 'jobId'>,
  scan: { pin: ObjectPin; dialect: Dialect; chunkCount: number; totalEmails: number },
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
  counts: Statistics;
  partKey: string;
  partBytes: number;
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
  bulkStatuses.forEach((status, n) => {
    names[`#s${n}`] = status;
    values[`:c${n}`] = chunk.counts[status];
    sets.push(`#counts.#s${n} = #counts.#s${n} + :c${n}`);
    processed += chunk.counts[status];
  });
  values[':processed'] = processed;
  sets.push('processedEmails = processedEmails + :processed');
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
  done: { completedAt: string; statistics: Statistics; totalEmails: number; resultKey: string },
): Promise<boolean> {
  return conditional(
    new UpdateCommand({
      TableName: tableName(),
      Key: jobKey(job.companyId, job.jobId),
      UpdateExpression:
        'SET #status = :completed, completedAt = :at, statistics = :stats, totalEmails = :total, processedEmails = :total, resultKey = :key, #ttl = :ttl REMOVE assemblyLeaseUntilMs, scanLeaseUntilMs',
      ConditionExpression: '#status = :processing',
      ExpressionAttributeNames: { '#status': 'status', '#ttl': 'ttl' },
      ExpressionAttributeValues: {
        ':ttl': epochSeconds(new Date(done.completedAt)) + resultsRetentionSeconds + expiredJobKeptSeconds,
        ':completed': 'completed',
        ':processing': 'processing',
        ':at': done.completedAt,
        ':stats': done.statistics,
        ':total': done.totalEmails,
        ':key': done.resultKey,
      },
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
  const values: Record<string, unknown> = { ':failed': 'failed', ':error': error, ':at': at };
  const allowed = from.map((status, n) => {
    values[`:from${n}`] = status;
    return `:from${n}`;
  });
  let condition = `#status IN (${allowed.join(', ')})`;
  if (deadlinePassedAtMs !== undefined) {
    condition += ' AND deadlineAtMs <= :deadline';
    values[':deadline'] = deadlinePassedAtMs;
  }
  return countedFailure(
    conditional(
      new UpdateCommand({
        TableName: tableName(),
        Key: jobKey(job.companyId, job.jobId),
        UpdateExpression: 'SET #status = :failed, #error = :error, failedAt = :at',
        ConditionExpression: condition,
        ExpressionAttributeNames: { '#status': 'status', '#error': 'error' },
        ExpressionAttributeValues: values,
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
    conditional(
      new UpdateCommand({
        TableName: tableName(),
        Key: jobKey(job.companyId, job.jobId),
        UpdateExpression: 'SET #status = :failed, #error = :error, failedAt = :at',
        ConditionExpression:
          '#status = :awaiting OR (#status = :processing AND attribute_not_exists(chunkCount))',
        ExpressionAttributeNames: { '#status': 'status', '#error': 'error' },
        ExpressionAttributeValues: {
          ':failed': 'failed',
          ':error': error,
          ':at': at,
          ':awaiting': 'awaiting_upload',
          ':processing': 'processing',
        },
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
];

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
> &
  Pick<JobItem, 'doneChunks'> &
  Pick<JobProbeState, 'probeUnits'>;

/**
 * The company's jobs, newest first, one index page at a time (gsi1, sorted by creation time); the
 * caller stops iterating once it has what it needs, so a page costs the items up to offset + limit.
 */
export async function* companyJobsNewestFirst(
  companyId: string,
  storedStatuses?: readonly StoredJobStatus[],
): AsyncGenerator<ListedJob> {
  const values: Record<string, unknown> = { ':pk': jobsOfCompanyIndex(companyId).gsi1pk };
  let filter: string | undefined;
  if (storedStatuses) {
    filter = `#status IN (${storedStatuses.map((status, n) => {
      values[`:s${n}`] = status;
      return `:s${n}`;
    })})`;
  }
  const pages = queryPages({
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    ScanIndexForward: false,
    ProjectionExpression: listedAttributes.join(', '),
    FilterExpression: filter,
    ExpressionAttributeNames: { '#status': 'status', '#error': 'error' },
    ExpressionAttributeValues: values,
  });
  for await (const page of pages) for (const item of page) yield item as unknown as ListedJob;
}

/**
 * The first step of a DELETE: any state -> cancelled. From here on acceptsWork() is false for the job
 * and every conditional write of the bulk workers (which all require `processing`) fails.
 */
export async function markCancelled(job: Pick<JobItem, 'companyId' | 'jobId'>, at: string): Promise<boolean> {
  return conditional(
    new UpdateCommand({
      TableName: tableName(),
      Key: jobKey(job.companyId, job.jobId),
      UpdateExpression: 'SET #status = :cancelled, cancelledAt = :at',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':cancelled': 'cancelled', ':at': at },
    }),
  );
}

/** The last step of a DELETE: the job item goes. */
export async function deleteJob(job: Pick<JobItem, 'companyId' | 'jobId'>): Promise<void> {
  await send(new DeleteCommand({ TableName: tableName(), Key: jobKey(job.companyId, job.jobId) }));
}
