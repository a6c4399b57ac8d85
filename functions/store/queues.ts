// Queue writes: sending a use case's messages (one, or batches retried until every entry is taken) and
// holding a received message back for a delay.
import {
  ChangeMessageVisibilityCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { queueUrl, sqs } from '../clients/sqs';
import { sortedJson } from '../json';
import type { QueueName } from '../wiring';

/** Keeps a received message invisible for `delaySeconds`, so SQS delivers it again only after that. */
export async function holdMessage(
  queue: QueueName,
  receiptHandle: string,
  delaySeconds: number,
): Promise<void> {
  await sqs().send(
    new ChangeMessageVisibilityCommand({
      QueueUrl: queueUrl(queue),
      ReceiptHandle: receiptHandle,
      VisibilityTimeout: delaySeconds,
    }),
  );
}

/** Sends one message, as its JSON text with sorted keys, to the named queue (delivered after `delaySeconds`, at most 900). */
export async function sendMessage(queue: QueueName, message: unknown, delaySeconds?: number): Promise<void> {
  await sqs().send(
    new SendMessageCommand({
      QueueUrl: queueUrl(queue),
      MessageBody: sortedJson(message),
      ...(delaySeconds ? { DelaySeconds: Math.min(900, Math.max(0, Math.round(delaySeconds))) } : {}),
    }),
  );
}

/** SendMessageBatch attempts before a batch whose entries keep failing is an error. */
const batchAttempts = 5;

/**
 * Sends up to 10 messages in one SendMessageBatch, sending the entries SQS reports as failed again
 * (up to 5 attempts, backing off); throws when some still fail. `id` names each entry in the batch.
 */
export async function sendMessageBatch(
  queue: QueueName,
  messages: { id: string; message: unknown }[],
): Promise<void> {
  let entries = messages.map(({ id, message }) => ({ Id: id, MessageBody: JSON.stringify(message) }));
  for (let attempt = 1; entries.length > 0; attempt++) {
    const out = await sqs().send(
      new SendMessageBatchCommand({ QueueUrl: queueUrl(queue), Entries: entries }),
    );
    const failed = new Set((out.Failed ?? []).map((f) => f.Id));
    entries = entries.filter((e) => failed.has(e.Id));
    if (entries.length > 0 && attempt >= batchAttempts)
      throw new Error(`SendMessageBatch kept failing for ${entries.length} messages`);
    if (entries.length > 0) await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
  }
}
