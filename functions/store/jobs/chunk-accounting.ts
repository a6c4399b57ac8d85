// A processing job's chunk accounting: the scan's outcome (how many chunks), then each chunk counted once.
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { tableName } from '../../clients/dynamodb';
import { ifConditionHolds, send } from '../dynamodb';
import { jobKey } from '../keys';
import { parseJob, type JobItem, type JobStatistics, type ObjectPin, type StoredDialect } from './item';

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
  return out?.Attributes ? parseJob(out.Attributes) : undefined;
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
  return out?.Attributes ? parseJob(out.Attributes) : undefined;
}

/** True when every chunk of the job is counted (and the scan has said how many there are). */
export function allChunksDone(job: JobItem): boolean {
  return job.chunkCount !== undefined && (job.doneChunks?.size ?? 0) >= job.chunkCount;
}
