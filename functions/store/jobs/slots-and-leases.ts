// A company's active-job slots (at most `activeJobs` jobs hold one) and the leases on a processing job's
// one-at-a-time steps: the scan and the assembly of the results file.
import { BatchGetCommand, DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { tableName } from '../../clients/dynamodb';
import { queryAll, scanPages, send, wroteIf } from '../dynamodb';
import { jobKey, jobSlotKey, jobSlotPrefix } from '../keys';
import { epochSeconds, tableKeys } from '../table';
import { jobSlotEntity } from '../entities/jobs';
import { parseJob, type JobItem, type JobLimits, type StoredJob } from './item';

/** Runs a conditional write; false when its condition did not hold. */
const conditional = (command: PutCommand | UpdateCommand | DeleteCommand): Promise<boolean> =>
  wroteIf(send(command));

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
        Item: jobSlotEntity.item({
          ...jobSlotKey(companyId, slot),
          entity: 'jobSlot',
          jobId,
          holdUntilMs,
          ttl: epochSeconds(new Date(nowMs)) + limits.unfinishedKeptSeconds,
        }),
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

/**
 * Extends the scan lease this run holds (`heldUntilMs`: the value it last set) to `leaseUntilMs`; false
 * when another run took the scan over, the scan recorded its outcome or the job left processing.
 */
export function renewScanLease(
  job: Pick<JobItem, 'companyId' | 'jobId'>,
  heldUntilMs: number,
  leaseUntilMs: number,
): Promise<boolean> {
  return conditional(
    new UpdateCommand({
      TableName: tableName(),
      Key: jobKey(job.companyId, job.jobId),
      UpdateExpression: 'SET scanLeaseUntilMs = :lease',
      ConditionExpression:
        '#status = :processing AND attribute_not_exists(chunkCount) AND scanLeaseUntilMs = :held',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':processing': 'processing',
        ':held': heldUntilMs,
        ':lease': leaseUntilMs,
      },
    }),
  );
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

/**
 * The jobs that hold one of the company's active-job slots now (at most five): the only jobs whose
 * status can still change by time alone before their counts' day ends (an upload URL expiring, a
 * processing deadline passing). One Query of the slots and one BatchGet.
 */
export async function slotHoldingJobs(companyId: string, nowMs: number): Promise<StoredJob[]> {
  const slots = await queryAll({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': jobSlotKey(companyId, 0).pk, ':prefix': jobSlotPrefix },
    ConsistentRead: true,
  });
  const held = slots
    .map((slot) => jobSlotEntity.parse(slot))
    .filter((slot) => slot.holdUntilMs > nowMs)
    .map((slot) => slot.jobId);
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
  return (out.Responses?.[tableName()] ?? []).filter((item) => item.entity === 'job').map(parseJob);
}
