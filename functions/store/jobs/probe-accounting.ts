// The probe stage's state in the single table. Per job (on the job item, a few counters per chunk, so
// the item stays small however many batches a job has): which chunks handed rows to probing and how
// many (progress), and how many batches of each chunk are settled. Per batch, its own item
// (PROBEBATCH#<job>#<chunk>#<batch>): its verdicts once settled, and while it is handed back how many
// of its addresses have a verdict. A batch settles in one transaction: the conditional put of its item
// (only if not settled yet) and the job's counters, so a redelivered batch counts nothing twice.
//
// Progress (domain/bulk/job-view.ts) counts two units per row: a row a chunk decides without a probe is worth 2 when
// its chunk is counted; a chunk that hands rows to probing is credited 2 per row it decided and 1 per
// address it handed over (probeUnits[chunk]), and each settled batch adds 1 per address, so the chunk
// holds 2 per row when its part is counted and its credit is replaced by the same 2 per row. A batch
// handed back before it settles (greylisted addresses wait minutes) adds the addresses it has verdicts
// for to that credit as they come (its item keeps how many, only ever raised), and its settle adds the
// rest of its size. Every step adds, none takes away: the bar never steps back.
//
// Jobs that started before this layout keep two attributes it no longer writes, read here as they
// are: `settledProbes` (a set of settled batch ids "<chunk>-<batch>", which grew with every batch and
// could pass DynamoDB's 400 KB item limit) and `probeProgress` (per batch handed back), removed per
// batch as before.
import { systemClock, type Clock } from '../../clock';
import { TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { tableName } from '../../clients/dynamodb';
import { cancellationReasons } from '../conditions';
import { ifConditionHolds, send } from '../dynamodb';
import { jobKey, probeBatchVerdictsKey } from '../keys';
import { epochSeconds, ttlAttribute } from '../table';
import {
  legacyBatchId,
  legacyProgress,
  readBatch,
  readChunkProbeState,
  chunkProbesSettled,
  type BatchState,
  type Job,
  type JobProbeState,
} from './probe-state';

/** Tries of a settle or progress write whose batch item changed between its read and its write. */
const batchWriteAttempts = 4;
/** Tries of a transaction that keeps meeting another one on the job item (busy jobs settle many at once). */
const transactionAttempts = 10;

async function conditionalUpdate(command: UpdateCommand): Promise<void> {
  await ifConditionHolds(send(command));
}

/**
 * The job's per-chunk maps, created empty when missing (a map entry can only be set in an existing
 * map); `probeProgress` too, so a settle can remove its legacy entry whether or not it has one.
 */
async function ensureProbeMaps(job: Job): Promise<void> {
  await conditionalUpdate(
    new UpdateCommand({
      TableName: tableName(),
      Key: jobKey(job.companyId, job.jobId),
      UpdateExpression:
        'SET probeUnits = if_not_exists(probeUnits, :empty), probeProgress = if_not_exists(probeProgress, :empty), ' +
        'probeSettled = if_not_exists(probeSettled, :empty), probeLastSettled = if_not_exists(probeLastSettled, :empty)',
      ConditionExpression: '#status = :processing',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':empty': {}, ':processing': 'processing' },
    }),
  );
}

/** DynamoDB's answer to a SET on an entry of a map that does not exist (alone or in a transaction). */
function isMissingMap(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const invalidPath = (message?: string) =>
    /document path provided in the update expression is invalid/i.test(message ?? '');
  if (error.name === 'ValidationException') return invalidPath(error.message);
  return (cancellationReasons(error) ?? []).some(
    (r) => r.Code === 'ValidationError' && invalidPath(r.Message),
  );
}

/** Runs a write on the job's probe maps; a job whose maps predate it gets them, then the write again. */
async function withProbeMaps<T>(job: Job, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (!isMissingMap(error)) throw error;
    await ensureProbeMaps(job);
    return write();
  }
}

/**
 * Counts the chunk's probe rows once (a redelivered chunk adds nothing): `rows` data rows, of which
 * `emails` distinct addresses go to probing.
 */
export async function recordProbeHandoff(job: Job, chunkIndex: number, rows: number, emails: number) {
  const handoff = () =>
    conditionalUpdate(
      new UpdateCommand({
        TableName: tableName(),
        Key: jobKey(job.companyId, job.jobId),
        UpdateExpression: 'SET probeUnits.#i = :units ADD probeChunks :set, probeEmails :n',
        ConditionExpression: '#status = :processing AND NOT contains(probeChunks, :idx)',
        ExpressionAttributeNames: { '#status': 'status', '#i': String(chunkIndex) },
        ExpressionAttributeValues: {
          ':set': new Set([chunkIndex]),
          ':n': emails,
          ':units': 2 * rows - emails,
          ':idx': chunkIndex,
          ':processing': 'processing',
        },
        ReturnValues: 'NONE',
      }),
    );
  // the job's first hand-off creates its maps (one write more, once per job)
  await withProbeMaps(job, handoff);
}

/** What a settled batch adds to its job's probe counts besides its size. */
export interface SettledCounts {
  /** Addresses not probed before the job's deadline. */
  unprobed: number;
  /** Addresses whose server refused us. */
  blocked: number;
}

/**
 * Records when the probe stage expects to be done (batches waiting for a session slot at a busy host):
 * shown in the job's progress. Only on a processing job.
 */
export async function recordProbeFinishExpected(job: Job, atMs: number): Promise<void> {
  await conditionalUpdate(
    new UpdateCommand({
      TableName: tableName(),
      Key: jobKey(job.companyId, job.jobId),
      UpdateExpression: 'SET probeFinishExpectedAtMs = :at',
      ConditionExpression: '#status = :processing',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':at': atMs, ':processing': 'processing' },
    }),
  );
}

/** The condition that a batch item is not settled and still holds the progress read before. */
const unchangedBatch = (progress: number | undefined) =>
  progress === undefined
    ? 'attribute_not_exists(settledAt) AND attribute_not_exists(progress)'
    : 'attribute_not_exists(settledAt) AND progress = :was';

/** What a settle that counted says: whether this batch was its chunk's last, the one to send it on. */
export interface SettledBatch {
  counted: true;
  lastOfChunk: boolean;
}

/**
 * Why a settle counted nothing, for the caller's log line: the batch's item was settled already (a
 * redelivery, or a duplicate that won), the job's condition failed (it is no longer processing, or is
 * gone, or a job of the legacy layout lists the batch as settled), or the batch's progress kept rising
 * while this settle tried.
 */
export type NotCountedReason = 'batch settled before' | 'job not processing' | 'batch kept changing';

export interface NotCounted {
  counted: false;
  why: NotCountedReason;
}

/** Which items of a cancelled transaction failed their condition (by position), or null: not that. */
function failedConditions(error: unknown): boolean[] | null {
  const failed = (cancellationReasons(error) ?? []).map((r) => r.Code === 'ConditionalCheckFailed');
  return failed.includes(true) ? failed : null;
}

/**
 * Settles one batch, at most once: its item (verdicts, kept `keptSeconds`: domain/bulk/limits.ts
 * jobRetentionSeconds) and the job's counters (probedEmails, the chunk's credit and settled count, the
 * chunk's last settled batch) in one transaction, conditioned on the batch not being settled and the
 * job processing.
 *
 * Whether it was the chunk's last comes without reading the job again when the chunk's batch count is
 * known (and the job has no legacy settled-id set): the first try also requires that some other batch
 * of the chunk is still unsettled, so holding says "not the last"; failing for that alone says every
 * other batch is settled, and the try without it makes this one the last. Otherwise the job's chunk
 * counters are read after the settle.
 * @param known what the message read of the batch, how many batches its chunk has, and whether the
 *   job keeps the legacy settled-id set
 * @returns whether the batch was its chunk's last (never when `known` has no batch count), or why it
 *   counted nothing (a failed condition is an answer, never an error)
 */
export async function settleProbeBatch(
  job: Job,
  chunkIndex: number,
  batch: number,
  emails: number,
  verdicts: Record<string, string>,
  keptSeconds: number,
  counts: SettledCounts = { unprobed: 0, blocked: 0 },
  known: { batch?: BatchState; batches?: number; legacySettled?: boolean } = {},
  clock: Clock = systemClock,
): Promise<SettledBatch | NotCounted> {
  const chunk = String(chunkIndex);
  const batches = known.batches;
  // the batch as the message read it; without that, most batches are never handed back: first try as
  // one with no progress, read only when that fails
  const settledAt = clock();
  let before: BatchState = known.batch ?? { settled: false, progress: undefined };
  // the count of a legacy job's chunk includes its settled-id set, which no condition can count
  const withoutRead = batches !== undefined && batches > 1 && known.legacySettled === false;
  let othersUnsettled = withoutRead;
  for (let attempt = 1; ; attempt++) {
    const was = before.progress ?? 0;
    const batchValues: Record<string, unknown> = before.progress === undefined ? {} : { ':was': was };
    const jobCondition =
      '#status = :processing AND NOT contains(settledProbes, :id)' +
      (othersUnsettled ? ' AND (attribute_not_exists(probeSettled.#c) OR probeSettled.#c < :others)' : '');
    const settle = () =>
      send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: tableName(),
                Item: {
                  ...probeBatchVerdictsKey(job.companyId, job.jobId, chunkIndex, batch),
                  entity: 'probeBatch',
                  verdicts,
                  size: emails,
                  settledAt: settledAt.toISOString(),
                  [ttlAttribute]: epochSeconds(settledAt) + keptSeconds,
                },
                ConditionExpression: unchangedBatch(before.progress),
                ...(before.progress === undefined ? {} : { ExpressionAttributeValues: batchValues }),
              },
            },
            {
              Update: {
                TableName: tableName(),
                Key: jobKey(job.companyId, job.jobId),
                UpdateExpression:
                  'SET probeUnits.#c = if_not_exists(probeUnits.#c, :zero) + :units, ' +
                  'probeSettled.#c = if_not_exists(probeSettled.#c, :zero) + :one, probeLastSettled.#c = :batch ' +
                  'REMOVE probeProgress.#b ADD probedEmails :n, unprobedEmails :unprobed, blockedEmails :blocked',
                ConditionExpression: jobCondition,
                ExpressionAttributeNames: {
                  '#status': 'status',
                  '#c': chunk,
                  '#b': legacyBatchId(chunkIndex, batch),
                },
                ExpressionAttributeValues: {
                  ':units': emails - was,
                  ':n': emails,
                  ':unprobed': counts.unprobed,
                  ':blocked': counts.blocked,
                  ':zero': 0,
                  ':one': 1,
                  ':batch': batch,
                  ':id': legacyBatchId(chunkIndex, batch),
                  ':processing': 'processing',
                  ...(othersUnsettled ? { ':others': batches! - 1 } : {}),
                },
              },
            },
          ],
        }),
        transactionAttempts,
      );
    let failed: boolean[] | null = null;
    try {
      await withProbeMaps(job, settle);
    } catch (error) {
      failed = failedConditions(error);
      if (!failed) throw error;
    }
    if (!failed) {
      // the only batch of its chunk: settling it settled the chunk, and this settle was the last
      if (batches === 1) return { counted: true, lastOfChunk: true };
      // not holding on an earlier try, the others' count had reached batches - 1 (counts only grow)
      if (withoutRead) return { counted: true, lastOfChunk: !othersUnsettled };
      const after = await readChunkProbeState(job, chunkIndex);
      return {
        counted: true,
        lastOfChunk:
          batches !== undefined &&
          after !== undefined &&
          after.status === 'processing' &&
          chunkProbesSettled(after, chunkIndex, batches, batch),
      };
    }
    // reasons that do not say which item failed are taken as the batch's (read again below)
    const batchFailed = failed[0] ?? true;
    if (!batchFailed && othersUnsettled) {
      // the job's condition alone: every other batch is settled (or the job moved on: the next try says)
      othersUnsettled = false;
      continue;
    }
    if (!batchFailed) return { counted: false, why: 'job not processing' };
    // the batch's condition: it settled meanwhile, or its progress rose meanwhile (try again with the
    // new figure)
    const now = await readBatch(job, chunkIndex, batch);
    if (now.settled) return { counted: false, why: 'batch settled before' };
    // unsettled and as read (progress only rises): its condition held, so the job's was the one
    if (now.progress === before.progress) return { counted: false, why: 'job not processing' };
    if (attempt >= batchWriteAttempts) return { counted: false, why: 'batch kept changing' };
    before = now;
  }
}

/**
 * Shows that a batch handed back has verdicts for `done` of its addresses: its item's progress is
 * raised (never lowered, never for a settled batch, so a late duplicate of an earlier round changes
 * nothing) and the job's credit for the chunk grows by as much, in one transaction.
 * @param known what the message read of the batch and the job, for the first try
 */
export async function recordBatchProgress(
  job: Job,
  chunkIndex: number,
  batch: number,
  done: number,
  keptSeconds: number,
  known?: { batch: BatchState; job: Pick<JobProbeState, 'probeProgress'> },
  clock: Clock = systemClock,
): Promise<void> {
  const id = legacyBatchId(chunkIndex, batch);
  for (let attempt = 1; attempt <= batchWriteAttempts; attempt++) {
    // the first try goes on what the message read; a try after a failed condition reads again
    const [before, legacy] =
      attempt === 1 && known
        ? [known.batch, known.job.probeProgress?.[id] ?? 0]
        : await Promise.all([readBatch(job, chunkIndex, batch), legacyProgress(job, id)]);
    const was = before.progress ?? 0;
    if (before.settled || done <= Math.max(was, legacy)) return;
    const batchValues: Record<string, unknown> = {
      ':n': done,
      ':entity': 'probeBatch',
      ':ttl': epochSeconds(clock()) + keptSeconds,
    };
    if (before.progress !== undefined) batchValues[':was'] = was;
    const record = () =>
      send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: tableName(),
                Key: probeBatchVerdictsKey(job.companyId, job.jobId, chunkIndex, batch),
                UpdateExpression: 'SET progress = :n, entity = :entity, #ttl = if_not_exists(#ttl, :ttl)',
                ConditionExpression: unchangedBatch(before.progress),
                ExpressionAttributeNames: { '#ttl': ttlAttribute },
                ExpressionAttributeValues: batchValues,
              },
            },
            {
              // the legacy entry, if any, is replaced by the credit: the bar shows `done`, once
              Update: {
                TableName: tableName(),
                Key: jobKey(job.companyId, job.jobId),
                UpdateExpression:
                  'SET probeUnits.#c = if_not_exists(probeUnits.#c, :zero) + :units REMOVE probeProgress.#b',
                ConditionExpression: '#status = :processing AND NOT contains(settledProbes, :id)',
                ExpressionAttributeNames: { '#status': 'status', '#c': String(chunkIndex), '#b': id },
                ExpressionAttributeValues: {
                  ':units': done - was,
                  ':zero': 0,
                  ':id': id,
                  ':processing': 'processing',
                },
              },
            },
          ],
        }),
        transactionAttempts,
      );
    if (await ifConditionHolds(withProbeMaps(job, record).then(() => true))) return;
  }
}
