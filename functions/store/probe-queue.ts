// The probe stage's queue writes: probe batches onto the probes queue (ten per request), and one
// message to a queue after an optional delay (a batch handed back, a chunk sent on).
import { SendMessageBatchCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { queueUrl, sqs } from '../clients/sqs';
import type { QueueName } from '../wiring';

/** Sends one message, visible after `delaySeconds` (SQS DelaySeconds, at most 900). */
export async function sendDelayed(queue: QueueName, body: string, delaySeconds = 0): Promise<void> {
  await sqs().send(
    new SendMessageCommand({ QueueUrl: queueUrl(queue), MessageBody: body, DelaySeconds: delaySeconds }),
  );
}

/** Sends every body to the probes queue; throws when any was not accepted. */
export async function sendProbeBatches(bodies: readonly string[]): Promise<void> {
  for (let i = 0; i < bodies.length; i += 10) {
    const out = await sqs().send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl('probes'),
        Entries: bodies.slice(i, i + 10).map((body, j) => ({ Id: String(j), MessageBody: body })),
      }),
    );
    if ((out.Failed ?? []).length > 0) throw new Error(`${out.Failed!.length} probe batches not queued`);
  }
}
