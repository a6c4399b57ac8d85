// The probe stage's state in the single table: per job, which chunks handed rows to probing and how
// many (progress), which probe batches are settled (exactly once, by a conditional set add), and the
// verdicts of each settled batch, read back when the chunk writes its part.
import { PutCommand, QueryCommand, UpdateCommand, type QueryCommandOutput } from '@aws-sdk/lib-dynamodb';
import { dynamoDb, tableName } from '../../clients/dynamodb';
import { isConditionFailure } from '../../store/conditions';
import { jobKey, probeBatchVerdictsKey, probeBatchVerdictsPrefix } from '../../store/keys';
import { epochSeconds, ttlAttribute } from '../../store/table';
import type { MailboxProbe } from '../validation/types';
import type { JobItem } from './job-store';
import { jobRetentionSeconds } from './limits';

/** The probe attributes of a job item. */
export interface JobProbeState {
  /** Chunks that handed rows to probing. */
  probeChunks?: Set<number>;
  /** Addresses handed to probing, and addresses whose batch settled: the progress of the stage. */
  probeEmails?: number;
  probedEmails?: number;
  /** Settled batch ids ("<chunk>-<batch>"). */
  settledProbes?: Set<string>;
}

type Job = Pick<JobItem, 'companyId' | 'jobId'>;

async function conditionalUpdate(command: UpdateCommand): Promise<(JobItem & JobProbeState) | undefined> {
  try {
    const out = await dynamoDb().send(command);
    return out.Attributes as (JobItem & JobProbeState) | undefined;
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

/** Counts the chunk's probe rows once (a redelivered chunk adds nothing). */
export function recordProbeHandoff(job: Job, chunkIndex: number, emails: number) {
  return conditionalUpdate(
    new UpdateCommand({
      TableName: tableName(),
      Key: jobKey(job.companyId, job.jobId),
      UpdateExpression: 'ADD probeChunks :set, probeEmails :n',
      ConditionExpression: '#status = :processing AND NOT contains(probeChunks, :idx)',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':set': new Set([chunkIndex]),
        ':n': emails,
        ':idx': chunkIndex,
        ':processing': 'processing',
      },
      ReturnValues: 'ALL_NEW',
    }),
  );
}

/**
 * Marks one batch settled and counts its addresses, at most once per batch id.
 * @returns the job after the update, or undefined when already settled (or the job moved on)
 */
export function settleProbeBatch(job: Job, batchId: string, emails: number) {
  return conditionalUpdate(
    new UpdateCommand({
      TableName: tableName(),
      Key: jobKey(job.companyId, job.jobId),
      UpdateExpression: 'ADD settledProbes :set, probedEmails :n',
      ConditionExpression: '#status = :processing AND NOT contains(settledProbes, :id)',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':set': new Set([batchId]),
        ':n': emails,
        ':id': batchId,
        ':processing': 'processing',
      },
      ReturnValues: 'ALL_NEW',
    }),
  );
}

/** True when `batches` batches of the chunk are settled on the job. */
export function chunkProbesSettled(job: JobProbeState, chunkIndex: number, batches: number): boolean {
  let n = 0;
  for (const id of job.settledProbes ?? []) if (id.startsWith(`${chunkIndex}-`)) n++;
  return n >= batches;
}

/** Stores a batch's verdicts (a put: a second settle attempt writes the same item). */
export async function putBatchVerdicts(
  job: Job,
  chunkIndex: number,
  batch: number,
  verdicts: Record<string, MailboxProbe>,
): Promise<void> {
  await dynamoDb().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...probeBatchVerdictsKey(job.companyId, job.jobId, chunkIndex, batch),
        entity: 'probeBatch',
        verdicts,
        [ttlAttribute]: epochSeconds() + jobRetentionSeconds,
      },
    }),
  );
}

/** Every settled verdict of a chunk, by normalised address. */
export async function loadChunkVerdicts(job: Job, chunkIndex: number): Promise<Map<string, MailboxProbe>> {
  const out = new Map<string, MailboxProbe>();
  let start: Record<string, unknown> | undefined;
  do {
    const page: QueryCommandOutput = await dynamoDb().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
        ExpressionAttributeValues: {
          ':pk': jobKey(job.companyId, job.jobId).pk,
          ':sk': probeBatchVerdictsPrefix(job.jobId, chunkIndex),
        },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    for (const item of page.Items ?? [])
      for (const [email, probe] of Object.entries((item.verdicts ?? {}) as Record<string, MailboxProbe>))
        out.set(email, probe);
    start = page.LastEvaluatedKey;
  } while (start);
  return out;
}
