// Queue writes that are not a use case's own message: holding a received message back for a delay.
import { ChangeMessageVisibilityCommand } from '@aws-sdk/client-sqs';
import { queueUrl, sqs } from '../clients/sqs';
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
