// SQS chunks DLQ: a chunk that kept failing fails its job with an error a person can act on.
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { parseChunkMessage } from '../domain/bulk/chunk-messages';
import { failJobOfDeadChunk } from '../domain/bulk/validate-chunk';
import { logger } from '../log';

export async function failChunkJobHandler(event: SQSEvent): Promise<SQSBatchResponse> {
  const log = logger.child({ function: 'failChunkJob' });
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    let message;
    try {
      message = parseChunkMessage(record.body);
    } catch (error) {
      // Not a chunk message: nothing to fail, and retrying will not change that.
      log.error('unreadable message on the chunks DLQ; dropped', error, { messageId: record.messageId });
      continue;
    }
    try {
      await failJobOfDeadChunk(message, log);
    } catch (error) {
      log.error('could not fail the job of a dead chunk', error, { messageId: record.messageId });
      batchItemFailures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures };
}

export const handler = middy<SQSEvent, SQSBatchResponse>().handler(failChunkJobHandler);
