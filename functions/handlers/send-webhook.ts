// SQS webhooks consumer: one delivery attempt per message. A retry is scheduled by holding the message
// invisible for the backoff delay (ChangeMessageVisibility) and reporting it as a batch item failure,
// so no Lambda ever sleeps; the message's receive count is the attempt number.
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { deliverWebhook, recordMalformedMessage } from '../domain/webhooks/deliver-webhook';
import { webhookMessageSchema } from '../domain/webhooks/message';
import { holdMessage } from '../store/queues';
import { sqsBatch } from '../middlewares/sqs-batch';

// Concurrently: ten receivers that each take the full timeout must still fit in one invocation.
export const sendWebhook = sqsBatch(
  webhookMessageSchema,
  async (message, { record, log }) => {
    const attempt = attemptNumber(record);
    const recordLog = log.child({ attempt });
    const decision = await deliverWebhook(message, { attempt, log: recordLog });
    if (decision.action === 'acknowledge') return;
    await holdMessage('webhooks', record.receiptHandle, decision.delaySeconds).catch((error: unknown) => {
      // The message still comes back after the queue's own visibility timeout (90 s): sooner, not lost.
      recordLog.error('Could not delay the webhook retry', error, { delaySeconds: decision.delaySeconds });
    });
    return 'retry';
  },
  {
    name: 'sendWebhook',
    concurrent: true,
    onUnreadable: (record, log) =>
      recordMalformedMessage(record.body ?? '', { attempt: attemptNumber(record), log }),
  },
);

function attemptNumber(record: SQSRecord): number {
  const count = Number.parseInt(record.attributes?.ApproximateReceiveCount ?? '', 10);
  return Number.isFinite(count) && count > 0 ? count : 1;
}

export const handler = middy<SQSEvent, SQSBatchResponse>().handler(sendWebhook);
