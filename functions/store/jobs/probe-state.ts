// The probe stage's state as its workers read it: the probe attributes of a job item, a batch's own
// item, and the reads a probe message makes (probe-accounting.ts has the layout and the writes).
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { tableName } from '../../clients/dynamodb';
import { batchGetAll, queryAll, send } from '../dynamodb';
import { jobKey, probeBatchVerdictsKey, probeBatchVerdictsPrefix } from '../keys';
import { tableKeys } from '../table';
import { MalformedItemError, type StoredItem } from '../entities/declare';
import { jobEntity, probeBatchEntity } from '../entities/jobs';
import type { JobItem } from './item';

/** The probe attributes of a job item. */
export interface JobProbeState {
  /** Chunks that handed rows to probing. */
  probeChunks?: Set<number>;
  /** Addresses handed to probing, and addresses whose batch settled: the progress of the stage. */
  probeEmails?: number;
  probedEmails?: number;
  /** Progress units credited per chunk that handed rows to probing (probe-accounting.ts says how). */
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

const chunkProbeAttributes = ['status', 'doneChunks', 'probeSettled', 'probeLastSettled', 'settledProbes'];

/** What a settle reads back of the job: enough to know whether the chunk moves on. */
export type ChunkProbeState = Pick<JobItem, 'status' | 'doneChunks'> &
  Pick<JobProbeState, 'probeSettled' | 'probeLastSettled' | 'settledProbes'>;

export type Job = Pick<JobItem, 'companyId' | 'jobId'>;

/** The id a batch has in a job's legacy `settledProbes` and `probeProgress` (domain's probeBatchId). */
export const legacyBatchId = (chunkIndex: number, batch: number) => `${chunkIndex}-${batch}`;

/** What a batch's own item says: settled or not, and how many addresses its progress has credited. */
export interface BatchState {
  settled: boolean;
  progress: number | undefined;
}

function batchState(item: StoredItem | undefined): BatchState {
  const batch = item && probeBatchEntity.parsePart(item, ['settledAt', 'progress']);
  return { settled: batch?.settledAt !== undefined, progress: batch?.progress };
}

/**
 * What a probe message needs of its job item: no more is read (a job item grows with its chunks).
 * Not `doneChunks`, a set as large as the job's chunks and the costliest attribute to parse: a batch
 * delivered again after it settled may send its chunk on once more, which the chunk drops as counted.
 */
export type ProbeJobView = Pick<JobItem, 'status' | 'deadlineAtMs'> &
  Pick<
    JobProbeState,
    | 'probeEmails'
    | 'probedEmails'
    | 'probeSettled'
    | 'probeLastSettled'
    | 'settledProbes'
    | 'probeProgress'
    | 'probeFinishExpectedAtMs'
  >;

/** The attributes of ProbeJobView; the per-chunk maps are read for the message's chunk only. */
const probeJobAttributes = [
  'status',
  'deadlineAtMs',
  'probeEmails',
  'probedEmails',
  'probeSettled',
  'probeLastSettled',
  'settledProbes',
  'probeProgress',
  'probeFinishExpectedAtMs',
];

/** The per-chunk maps of a job item: a projection reads one chunk's entry (`#c`) of each. */
const perChunkMaps = new Set(['probeSettled', 'probeLastSettled']);

/** The ProjectionExpression of job attributes (`#status` and `#c` to be named by the read). */
function jobProjection(attributes: readonly string[]): string {
  return attributes
    .map((name) => (name === 'status' ? '#status' : perChunkMaps.has(name) ? `${name}.#c` : name))
    .join(', ');
}

/** One projection for both items of readJobAndBatch (an attribute an item lacks is left out). */
const jobAndBatchProjection = `#pk, #sk, #entity, ${jobProjection(probeJobAttributes)}, settledAt, progress`;

/** A part of a job item read back; every job item has a status, so a part without one is malformed. */
function withStatus<T extends { status?: JobItem['status'] }>(
  stored: StoredItem,
  part: T,
): T & { status: JobItem['status'] } {
  const { status } = part;
  if (status === undefined) throw new MalformedItemError(jobEntity.name, stored, 'no status');
  return { ...part, status };
}

/**
 * A probe message's one read: the job item and its batch's item, in one consistent BatchGetItem,
 * projected on what the message uses (parsing a whole job item costs more than the rest of a message's
 * CPU). The batch counts as settled when its item says so or the job's legacy set has it.
 */
export async function readJobAndBatch(
  job: Job,
  chunkIndex: number,
  batch: number,
): Promise<{ job: ProbeJobView | undefined; batch: BatchState }> {
  const jobItemKey = jobKey(job.companyId, job.jobId);
  const batchKey = probeBatchVerdictsKey(job.companyId, job.jobId, chunkIndex, batch);
  const items = await batchGetAll([{ ...jobItemKey }, { ...batchKey }], {
    consistent: true,
    projection: jobAndBatchProjection,
    names: {
      '#pk': tableKeys.partition,
      '#sk': tableKeys.sort,
      '#entity': 'entity',
      '#status': 'status',
      '#c': String(chunkIndex),
    },
  });
  const stored = items.find((item) => item.sk === jobItemKey.sk && item.entity === 'job');
  const jobItem = stored && probeJobView(stored);
  const state = batchState(items.find((item) => item.sk === batchKey.sk));
  if (jobItem?.settledProbes?.has(legacyBatchId(chunkIndex, batch))) state.settled = true;
  return { job: jobItem, batch: state };
}

function probeJobView(stored: StoredItem): ProbeJobView {
  return withStatus(stored, jobEntity.parsePart(stored, probeJobAttributes));
}

/** The batch item alone, read again after a write of it failed its condition. */
export async function readBatch(job: Job, chunkIndex: number, batch: number): Promise<BatchState> {
  const out = await send<{ Item?: StoredItem }>(
    new GetCommand({
      TableName: tableName(),
      Key: probeBatchVerdictsKey(job.companyId, job.jobId, chunkIndex, batch),
      ProjectionExpression: 'settledAt, progress',
      ConsistentRead: true,
    }),
  );
  return batchState(out.Item);
}

/** The job's status and the chunk's probe counters, read after a settle (not the whole item). */
export async function readChunkProbeState(
  job: Job,
  chunkIndex: number,
): Promise<ChunkProbeState | undefined> {
  const out = await send<{ Item?: Record<string, unknown> }>(
    new GetCommand({
      TableName: tableName(),
      Key: jobKey(job.companyId, job.jobId),
      ProjectionExpression: jobProjection(chunkProbeAttributes),
      ExpressionAttributeNames: { '#status': 'status', '#c': String(chunkIndex) },
      ConsistentRead: true,
    }),
  );
  if (!out.Item) return undefined;
  return withStatus(out.Item, jobEntity.parsePart(out.Item, chunkProbeAttributes));
}

/** A legacy job's progress entry for a batch (0 when none). */
export async function legacyProgress(job: Job, id: string): Promise<number> {
  const out = await send<{ Item?: StoredItem }>(
    new GetCommand({
      TableName: tableName(),
      Key: jobKey(job.companyId, job.jobId),
      ProjectionExpression: 'probeProgress.#b',
      ExpressionAttributeNames: { '#b': id },
      ConsistentRead: true,
    }),
  );
  const item = out.Item && jobEntity.parsePart(out.Item, ['probeProgress']);
  return item?.probeProgress?.[id] ?? 0;
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
    for (const [email, probe] of Object.entries(
      probeBatchEntity.parsePart(item, ['verdicts']).verdicts ?? {},
    ))
      out.set(email, probe);
  return out;
}
