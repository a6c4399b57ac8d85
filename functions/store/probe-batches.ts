// The probe stage's state in the single table: per job, which chunks handed rows to probing and how
// many (progress), which probe batches are settled (exactly once, by a conditional set add), and the
// verdicts of each settled batch, read back when the chunk writes its part.
//
// Progress (domain/bulk/job-view.ts) counts two units per row: a row a chunk decides without a probe is worth 2 when
// its chunk is counted; a chunk that hands rows to probing is credited 2 per row it decided and 1 per
// address it handed over (probeUnits[chunk]), and each settled batch adds 1 per address, so the chunk
// holds 2 per row when its part is counted and its credit is replaced by the same 2 per row. A batch
// handed back before it settles (greylisted addresses wait minutes) shows the addresses it has verdicts
// for in probeProgress[batch], only ever raised, and replaced by its whole size when it settles. Every
// step adds, none takes away: the bar never steps back.
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { tableName } from '../clients/dynamodb';
import { ifConditionHolds, queryAll, send } from './dynamodb';
import type { JobItem } from './jobs';
import { jobKey, probeBatchVerdictsKey, probeBatchVerdictsPrefix } from './keys';
import { epochSeconds, ttlAttribute } from './table';

/** The probe attributes of a job item. */
export interface JobProbeState {
  /** Chunks that handed rows to probing. */
  probeChunks?: Set<number>;
  /** Addresses handed to probing, and addresses whose batch settled: the progress of the stage. */
  probeEmails?: number;
  probedEmails?: number;
  /** Progress units credited per chunk that handed rows to probing (see above). */
  probeUnits?: Record<string, number>;
  /** Settled batch ids ("<chunk>-<batch>"). */
  settledProbes?: Set<string>;
  /** Addresses with a verdict so far, per batch handed back and not yet settled. */
  probeProgress?: Record<string, number>;
  /** Addresses the probe stage could not probe before the job's deadline (they keep their DNS verdict). */
  unprobedEmails?: number;
  /** Addresses whose server refused us ("about us, not the mailbox"), for the job's probe health line. */
  blockedEmails?: number;
  /** When the probe stage expects to have probed every address, while batches wait on politeness. */
  probeFinishExpectedAtMs?: number;
}

type Job = Pick<JobItem, 'companyId' | 'jobId'>;

async function conditionalUpdate(command: UpdateCommand): Promise<(JobItem & JobProbeState) | undefined> {
  const out = await ifConditionHolds(send<{ Attributes?: Record<string, unknown> }>(command));
  return out?.Attributes as (JobItem & JobProbeState) | undefined;
}

/**
 * The job's probeUnits and probeProgress maps, created empty when missing (a map entry can only be set
 * in an existing map).
 */
async function ensureProbeUnits(job: Job): Promise<void> {
  await conditionalUpdate(
    new UpdateCommand({
      TableName: tableName(),
      Key: jobKey(job.companyId, job.jobId),
      UpdateExpression:
        'SET probeUnits = if_not_exists(probeUnits, :empty), probeProgress = if_not_exists(probeProgress, :empty)',
      ConditionExpression: '#status = :processing',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':empty': {}, ':processing': 'processing' },
    }),
  );
}

/** DynamoDB's answer to a SET on an entry of a map that does not exist. */
const isMissingMap = (error: unknown) =>
  error instanceof Error &&
  error.name === 'ValidationException' &&
  /document path provided in the update expression is invalid/i.test(error.message);

/**
 * Counts the chunk's probe rows once (a redelivered chunk adds nothing): `rows` data rows, of which
 * `emails` distinct addresses go to probing.
 */
export async function recordProbeHandoff(job: Job, chunkIndex: number, rows: number, emails: number) {
  await ensureProbeUnits(job);
  return conditionalUpdate(
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
 * Marks one batch settled and counts its addresses, at most once per batch id.
 * @returns the job after the update, or undefined when already settled (or the job moved on)
 */
export async function settleProbeBatch(
  job: Job,
  batchId: string,
  chunkIndex: number,
  emails: number,
  counts: SettledCounts = { unprobed: 0, blocked: 0 },
) {
  const settle = () =>
    conditionalUpdate(
      new UpdateCommand({
        TableName: tableName(),
        Key: jobKey(job.companyId, job.jobId),
        UpdateExpression:
          'SET probeUnits.#i = if_not_exists(probeUnits.#i, :zero) + :n REMOVE probeProgress.#b ADD settledProbes :set, probedEmails :n, unprobedEmails :unprobed, blockedEmails :blocked',
        ConditionExpression: '#status = :processing AND NOT contains(settledProbes, :id)',
        ExpressionAttributeNames: { '#status': 'status', '#i': String(chunkIndex), '#b': batchId },
        ExpressionAttributeValues: {
          ':set': new Set([batchId]),
          ':n': emails,
          ':unprobed': counts.unprobed,
          ':blocked': counts.blocked,
          ':zero': 0,
          ':id': batchId,
          ':processing': 'processing',
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
  try {
    return await settle();
  } catch (error) {
    // a job whose hand-off predates progress units: its map is created, then the batch settles
    if (!isMissingMap(error)) throw error;
    await ensureProbeUnits(job);
    return settle();
  }
}

/**
 * Shows that a batch handed back has verdicts for `done` of its addresses: raised, never lowered, and
 * never for a settled batch (a late duplicate of an earlier round changes nothing).
 */
export async function recordBatchProgress(job: Job, batchId: string, done: number): Promise<void> {
  const record = () =>
    conditionalUpdate(
      new UpdateCommand({
        TableName: tableName(),
        Key: jobKey(job.companyId, job.jobId),
        UpdateExpression: 'SET probeProgress.#b = :n',
        ConditionExpression:
          '#status = :processing AND NOT contains(settledProbes, :id) AND (attribute_not_exists(probeProgress.#b) OR probeProgress.#b < :n)',
        ExpressionAttributeNames: { '#status': 'status', '#b': batchId },
        ExpressionAttributeValues: { ':n': done, ':id': batchId, ':processing': 'processing' },
      }),
    );
  try {
    await record();
  } catch (error) {
    // a job whose hand-off predates the progress map: it is created, then the progress recorded
    if (!isMissingMap(error)) throw error;
    await ensureProbeUnits(job);
    await record();
  }
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

/** True when `batches` batches of the chunk are settled on the job. */
export function chunkProbesSettled(job: JobProbeState, chunkIndex: number, batches: number): boolean {
  let n = 0;
  for (const id of job.settledProbes ?? []) if (id.startsWith(`${chunkIndex}-`)) n++;
  return n >= batches;
}

/**
 * Stores a batch's verdicts (a put: a second settle attempt writes the same item), kept `keptSeconds`
 * (domain/bulk/limits.ts jobRetentionSeconds).
 */
export async function putBatchVerdicts(
  job: Job,
  chunkIndex: number,
  batch: number,
  verdicts: Record<string, string>,
  keptSeconds: number,
): Promise<void> {
  await send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...probeBatchVerdictsKey(job.companyId, job.jobId, chunkIndex, batch),
        entity: 'probeBatch',
        verdicts,
        [ttlAttribute]: epochSeconds() + keptSeconds,
      },
    }),
  );
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
