// SQS probes: work each probe batch (one MX host) within the invocation's time, concurrently; a batch
// that fails is reported alone so SQS delivers only it again (sqsBatch drops unreadable messages: no
// retry can make them readable).
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { probeMessageSchema } from '../domain/bulk/probe-messages';
import { probeStageDeps, processProbeMessage } from '../domain/bulk/probe-stage';
import { secretSettings } from '../middlewares/secret-settings';
import { sqsBatch } from '../middlewares/sqs-batch';

function probeMailboxesHandler(event: SQSEvent, context: Context): Promise<SQSBatchResponse> {
  const deps = probeStageDeps();
  const time = { remainingMs: () => context.getRemainingTimeInMillis() };
  return sqsBatch(
    probeMessageSchema,
    async (message, { log }) => {
      await processProbeMessage(message, deps, time, log);
    },
    { name: 'probeMailboxes', concurrent: true },
  )(event);
}

export const handler = middy<SQSEvent, SQSBatchResponse, Error, Context>()
  .use(secretSettings())
  .handler(probeMailboxesHandler);
