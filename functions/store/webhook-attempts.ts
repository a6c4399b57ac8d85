// Storage of the webhook's trail on its job item: one record per attempt and the overall webhookStatus.
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { tableName } from '../clients/dynamodb';
import { send, wroteIf } from './dynamodb';
import { jobEntity } from './entities/jobs';
import { jobKey } from './keys';

export type AttemptOutcome = 'delivered' | 'retry' | 'failed' | 'refused';
export type WebhookStatus = 'delivered' | 'retrying' | 'failed';

/** One element of the job's `webhookAttempts` list. */
export interface AttemptRecord {
  /** 1-based; the message's ApproximateReceiveCount. */
  attempt: number;
  /** ISO time the attempt started. */
  at: string;
  outcome: AttemptOutcome;
  statusCode?: number;
  error?: string;
  /** Milliseconds from the attempt's start to its outcome (absent on records before it was kept). */
  durationMs?: number;
  /** ISO time of the next attempt, when the outcome was `retry`. */
  nextAttemptAt?: string;
}

export interface JobRef {
  companyId: string;
  jobId: string;
}

function statusAfter(outcome: AttemptOutcome): WebhookStatus {
  if (outcome === 'delivered') return 'delivered';
  if (outcome === 'retry') return 'retrying';
  return 'failed';
}

/**
 * Appends the attempt and sets webhookStatus. Returns false when the job item does not exist (nothing
 * to record on; the attempt still happened), so a webhook never creates a half-empty job item.
 */
export async function recordAttempt(job: JobRef, record: AttemptRecord): Promise<boolean> {
  return wroteIf(
    send(
      new UpdateCommand({
        TableName: tableName(),
        Key: jobKey(job.companyId, job.jobId),
        UpdateExpression:
          'SET webhookAttempts = list_append(if_not_exists(webhookAttempts, :empty), :attempt), webhookStatus = :status',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: {
          ':empty': [],
          ':attempt': [record],
          ':status': statusAfter(record.outcome),
        },
      }),
    ),
  );
}

/** The job's webhookStatus, if the job and a status exist. */
export async function currentWebhookStatus(job: JobRef): Promise<WebhookStatus | undefined> {
  const { Item } = await send(
    new GetCommand({
      TableName: tableName(),
      Key: jobKey(job.companyId, job.jobId),
      ProjectionExpression: 'webhookStatus',
    }),
  );
  return Item ? jobEntity.parsePart(Item, ['webhookStatus']).webhookStatus : undefined;
}

/** The job's attempt records and webhookStatus, if the job item exists. */
export async function readAttempts(
  job: JobRef,
): Promise<{ attempts: AttemptRecord[]; status: WebhookStatus | undefined } | undefined> {
  const { Item } = await send(
    new GetCommand({
      TableName: tableName(),
      Key: jobKey(job.companyId, job.jobId),
      ProjectionExpression: 'webhookAttempts, webhookStatus, #status',
      ExpressionAttributeNames: { '#status': 'status' },
    }),
  );
  if (!Item) return undefined;
  const trail = jobEntity.parsePart(Item, ['webhookAttempts', 'webhookStatus', 'status']);
  if (trail.status === 'cancelled') return undefined;
  return { attempts: trail.webhookAttempts ?? [], status: trail.webhookStatus };
}
