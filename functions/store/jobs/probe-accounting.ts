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
import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { tableName } from '../../clients/dynamodb';
import { ifConditionHolds, queryAll, send } from '../dynamodb';
import { jobKey, probeBatchVerdictsKey, probeBatchVerdictsPrefix } from '../keys';
import { epochSeconds, ttlAttribute } from '../table';
import type { JobItem } from './item';

/** The probe attributes of a job item. */
export interface JobProbeState {
  /** Chunks that handed rows to probing. */
  probeChunks?: Set<number>;
  /** Addresses handed to probing, and addresses whose batch settled: the progress of the stage. */
  probeEmails?: number;
  probedEmails?: number;
  /** Progress units credited per chunk that handed rows to probing (see above). */
  probeUnits?: Record<string, number>;
  /** Batches settled, per chunk. */
  probeSettled?: Record<string, number>;
  /** Per chunk, the batch whose settle was counted last: the one that sends the chunk on. */
  probeLastSettled?: Record<string, number>;
  /** Settled batch ids ("<chunk>-<batch>") of a job that started before per-batch items; never added to. */
  settledProbes?: Set<string>;
  /** Per batch handed back, addresses with a verdict, of a job that started before per-batch items. */
  probeProgress?: Record<string, number>;
  /** Addresses the probe stage could not probe before the job's deadline (they keep their DNS verdict). */
  unprobedEmails?: number;
  /** Addresses whose server refused us ("about us, not the mailbox"), for the job's probe health line. */
  blockedEmails?: number;
  /** When the probe stage expects to have probed every address, while batches wait on politeness. */
  probeFinishExpectedAtMs?: number;
}

/** What a settle reads back of the job: enough to know whether the chunk moves on. */
export type ChunkProbeState = Pick<JobItem, 'status' | 'doneChunks'> &
  Pick<JobProbeState, 'probeSettled' | 'probeLastSettled' | 'settledProbes'>;

type Job = Pick<JobItem, 'companyId' | 'jobId'>;

/** The id a batch has in a job's legacy `settledProbes` and `probeProgress` (domain's probeBatchId). */
const legacyBatchId = (chunkIndex: number, batch: number) => `${chunkIndex}-${batch}`;

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
  if (error.name !== 'TransactionCanceledException') return false;
  const reasons = (error as { CancellationReasons?: { Code?: string; Message?: string }[] })
    .CancellationReasons;
  return (reasons ?? []).some((r) => r.Code === 'ValidationError' && invalidPath(r.Message));
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
  await ensureProbeMaps(job);
  await conditionalUpdate(
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

/** What a batch's own item says: settled or not, and how many addresses its progress has credited. */
async function readBatch(
  job: Job,
  chunkIndex: number,
  batch: number,
): Promise<{ settled: boolean; progress: number | undefined }> {
  const out = await send<{ Item?: { settledAt?: string; progress?: number } }>(
    new GetCommand({
      TableName: tableName(),
      Key: probeBatchVerdictsKey(job.companyId, job.jobId, chunkIndex, batch),
      ProjectionExpression: 'settledAt, progress',
      ConsistentRead: true,
    }),
  );
  return { settled: out.Item?.settledAt !== undefined, progress: out.Item?.progress };
}

/** The condition that a batch item is not settled and still holds the progress read before. */
const unchangedBatch = (progress: number | undefined) =>
  progress === undefined
    ? 'attribute_not_exists(settledAt) AND attribute_not_exists(progress)'
    : 'attribute_not_exists(settledAt) AND progress = :was';

/** True when the batch is settled (its item says so, or the job's legacy set has it). */
export async function probeBatchSettled(
  job: Job & Pick<JobProbeState, 'settledProbes'>,
  chunkIndex: number,
  batch: number,
): Promise<boolean> {
  if (job.settledProbes?.has(legacyBatchId(chunkIndex, batch))) return true;
  return (await readBatch(job, chunkIndex, batch)).settled;
}

/**
 * Settles one batch, at most once: its item (verdicts, kept `keptSeconds`: domain/bulk/limits.ts
 * jobRetentionSeconds) and the job's counters (probedEmails, the chunk's credit and settled count, the
 * chunk's last settled batch) in one transaction, conditioned on the batch not being settled and the
 * job processing.
 * @returns what the chunk's state is after this settle, or undefined when the batch was settled
 *   already (or the job moved on)
 */
export async function settleProbeBatch(
  job: Job,
  chunkIndex: number,
  batch: number,
  emails: number,
  verdicts: Record<string, string>,
  keptSeconds: number,
  counts: SettledCounts = { unprobed: 0, blocked: 0 },
): Promise<ChunkProbeState | undefined> {
  const chunk = String(chunkIndex);
  // most batches are never handed back: first try as one with no progress, read only when that fails
  let before: { settled: boolean; progress: number | undefined } = { settled: false, progress: undefined };
  for (let attempt = 1; ; attempt++) {
    const was = before.progress ?? 0;
    const batchValues: Record<string, unknown> = before.progress === undefined ? {} : { ':was': was };
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
                  settledAt: new Date().toISOString(),
                  [ttlAttribute]: epochSeconds() + keptSeconds,
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
                ConditionExpression: '#status = :processing AND NOT contains(settledProbes, :id)',
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
                },
              },
            },
          ],
        }),
        transactionAttempts,
      );
    const settled = await ifConditionHolds(withProbeMaps(job, settle).then(() => true));
    if (settled) return readChunkProbeState(job, chunkIndex);
    // a condition failed: the batch settled meanwhile, its progress rose meanwhile (try again with
    // the new figure), or the job moved on
    const now = await readBatch(job, chunkIndex, batch);
    if (now.settled || now.progress === before.progress || attempt >= batchWriteAttempts) return undefined;
    before = now;
  }
}

/** The job's status and the chunk's probe counters, read after a settle (not the whole item). */
async function readChunkProbeState(job: Job, chunkIndex: number): Promise<ChunkProbeState | undefined> {
  const out = await send<{ Item?: Record<string, unknown> }>(
    new GetCommand({
      TableName: tableName(),
      Key: jobKey(job.companyId, job.jobId),
      ProjectionExpression: '#status, doneChunks, probeSettled.#c, probeLastSettled.#c, settledProbes',
      ExpressionAttributeNames: { '#status': 'status', '#c': String(chunkIndex) },
      ConsistentRead: true,
    }),
  );
  return out.Item as ChunkProbeState | undefined;
}

/**
 * Shows that a batch handed back has verdicts for `done` of its addresses: its item's progress is
 * raised (never lowered, never for a settled batch, so a late duplicate of an earlier round changes
 * nothing) and the job's credit for the chunk grows by as much, in one transaction.
 */
export async function recordBatchProgress(
  job: Job,
  chunkIndex: number,
  batch: number,
  done: number,
  keptSeconds: number,
): Promise<void> {
  const id = legacyBatchId(chunkIndex, batch);
  for (let attempt = 1; attempt <= batchWriteAttempts; attempt++) {
    const [before, legacy] = await Promise.all([readBatch(job, chunkIndex, batch), legacyProgress(job, id)]);
    const was = before.progress ?? 0;
    if (before.settled || done <= Math.max(was, legacy)) return;
    const batchValues: Record<string, unknown> = {
      ':n': done,
      ':entity': 'probeBatch',
      ':ttl': epochSeconds() + keptSeconds,
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

/** A legacy job's progress entry for a batch (0 when none). */
async function legacyProgress(job: Job, id: string): Promise<number> {
  const out = await send<{ Item?: { probeProgress?: Record<string, number> } }>(
    new GetCommand({
      TableName: tableName(),
      Key: jobKey(job.companyId, job.jobId),
      ProjectionExpression: 'probeProgress.#b',
      ExpressionAttributeNames: { '#b': id },
      ConsistentRead: true,
    }),
  );
  return out.Item?.probeProgress?.[id] ?? 0;
}

/**
 * True when `batches` batches of the chunk are settled and `batch` is the one whose settle was counted
 * last, so exactly one batch sends the chunk on (a job that does not say which: any batch).
 */
export function chunkProbesSettled(
  job: Pick<JobProbeState, 'probeSettled' | 'probeLastSettled' | 'settledProbes'>,
  chunkIndex: number,
  batches: number,
  batch: number,
): boolean {
  let n = job.probeSettled?.[String(chunkIndex)] ?? 0;
  for (const id of job.settledProbes ?? []) if (id.startsWith(`${chunkIndex}-`)) n++;
  if (n < batches) return false;
  const last = job.probeLastSettled?.[String(chunkIndex)];
  return last === undefined || last === batch;
}

/** Every settled verdict of a chunk, by normalised address. */
export async function loadChunkVerdicts(job: Job, chunkIndex: number): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
    ExpressionAttributeValues: {
      ':pk': jobKey(job.companyId, job.jobId).pk,
      ':sk': probeBatchVerdictsPrefix(job.jobId, chunkIndex),
    },
    ConsistentRead: true,
  });
  for (const item of items)
    for (const [email, probe] of Object.entries((item.verdicts ?? {}) as Record<string, string>))
      out.set(email, probe);
  return out;
}
