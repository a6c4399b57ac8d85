// SQS probes DLQ: a probe batch that kept failing settles with the verdicts it has; its other addresses
// keep their DNS verdicts, so the job still completes.
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { parseProbeMessage } from '../domain/bulk/probe-messages';
import { settleDeadProbeBatch } from '../domain/bulk/probe-stage';
import { logger } from '../log';

export async function failProbeBatchHandler(event: SQSEvent): Promise<SQSBatchResponse> {
  const log = logger.child({ function: 'failProbeBatch' });
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    let message;
    try {
      message = parseProbeMessage(record.body);
    } catch (error) {
      log.error('unreadable message on the probes DLQ; dropped', error, { messageId: record.messageId });
      continue;
    }
    try {
      await settleDeadProbeBatch(message, log);
    } catch (error) {
      log.error('could not settle a dead probe batch', error, { messageId: record.messageId });
      batchItemFailures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures };
}

export const handler = middy<SQSEvent, SQSBatchResponse>().handler(failProbeBatchHandler);
