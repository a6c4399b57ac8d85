// Queue writes: sending a use case's message, and holding a received message back for a delay.
import { ChangeMessageVisibilityCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
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

/** Sends one message, as its JSON text with sorted keys, to the named queue. */
export async function sendMessage(queue: QueueName, message: object): Promise<void> {
  await sqs().send(new SendMessageCommand({ QueueUrl: queueUrl(queue), MessageBody: sortedJson(message) }));
}
