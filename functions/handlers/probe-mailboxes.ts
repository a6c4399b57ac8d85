// SQS probes: work each probe batch (one MX host) within the invocation's time, concurrently; a batch
// that fails is reported alone so SQS delivers only it again. An unreadable message is dropped: no
// retry can make it readable.
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { parseProbeMessage } from '../domain/bulk/probe-messages';
import { probeStageDeps, processProbeMessage } from '../domain/bulk/probe-stage';
import { logger } from '../log';

export async function probeMailboxesHandler(event: SQSEvent, context: Context): Promise<SQSBatchResponse> {
  const log = logger.child({ function: 'probeMailboxes' });
  const deps = probeStageDeps();
  const ctx = { remainingMs: () => context.getRemainingTimeInMillis() };
  const results = await Promise.all(
    event.Records.map(async (record) => {
      let message;
      try {
        message = parseProbeMessage(record.body);
      } catch (error) {
        log.error('unreadable probe message; dropped', error, { messageId: record.messageId });
        return null;
      }
      try {
        await processProbeMessage(message, deps, ctx, log.child({ messageId: record.messageId }));
        return null;
      } catch (error) {
        log.error('probe batch failed; SQS will deliver it again', error, { messageId: record.messageId });
        return { itemIdentifier: record.messageId };
      }
    }),
  );
  return { batchItemFailures: results.filter((r) => r !== null) };
}

export const handler = middy<SQSEvent, SQSBatchResponse, Error, Context>().handler(probeMailboxesHandler);
