// SQS webhooks consumer: one delivery attempt per message. A retry is scheduled by holding the message
// invisible for the backoff delay (ChangeMessageVisibility) and reporting it as a batch item failure,
// so no Lambda ever sleeps; the message's receive count is the attempt number.
import { ChangeMessageVisibilityCommand } from '@aws-sdk/client-sqs';
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { queueUrl, sqs } from '../clients/sqs';
import { deliverWebhook } from '../domain/webhooks/deliver-webhook';
import { logger } from '../log';

const log = logger.child({ function: 'sendWebhook' });

export async function sendWebhook(event: SQSEvent): Promise<SQSBatchResponse> {
  // Concurrently: ten receivers that each take the full timeout must still fit in one invocation.
  const retried = await Promise.all((event.Records ?? []).map(handleRecord));
  return {
    batchItemFailures: retried
      .filter((id): id is string => id !== undefined)
      .map((id) => ({ itemIdentifier: id })),
  };
}

/** The record's messageId when it must come back later, else undefined (acknowledged). */
async function handleRecord(record: SQSRecord): Promise<string | undefined> {
  const attempt = attemptNumber(record);
  const recordLog = log.child({ messageId: record.messageId, attempt });
  try {
    const decision = await deliverWebhook(record.body ?? '', { attempt, log: recordLog });
    if (decision.action === 'acknowledge') return undefined;
    await holdFor(record, decision.delaySeconds).catch((error: unknown) => {
      // The message still comes back after the queue's own visibility timeout (90 s): sooner, not lost.
      recordLog.error('Could not delay the webhook retry', error, { delaySeconds: decision.delaySeconds });
    });
    return record.messageId;
  } catch (error) {
    // Infrastructure trouble (DynamoDB, the company lookup): let SQS redeliver; the DLQ catches a loop.
    recordLog.error('Webhook attempt failed before sending', error);
    return record.messageId;
  }
}

function attemptNumber(record: SQSRecord): number {
  const count = Number.parseInt(record.attributes?.ApproximateReceiveCount ?? '', 10);
  return Number.isFinite(count) && count > 0 ? count : 1;
}

async function holdFor(record: SQSRecord, delaySeconds: number): Promise<void> {
  await sqs().send(
    new ChangeMessageVisibilityCommand({
      QueueUrl: queueUrl('webhooks'),
      ReceiptHandle: record.receiptHandle,
      VisibilityTimeout: delaySeconds,
    }),
  );
}

export const handler = middy<SQSEvent, SQSBatchResponse>().handler(sendWebhook);
