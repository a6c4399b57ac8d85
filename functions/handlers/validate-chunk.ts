// SQS chunks: validate each chunk message; failures are reported per message so SQS retries only them.
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { parseChunkMessage } from '../domain/bulk/chunk-messages';
import { classifyChunk } from '../domain/bulk/classifier';
import { processChunkMessage } from '../domain/bulk/validate-chunk';
import { logger } from '../log';

export async function validateChunkHandler(event: SQSEvent): Promise<SQSBatchResponse> {
  const log = logger.child({ function: 'validateChunk' });
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    try {
      await processChunkMessage(
        parseChunkMessage(record.body),
        classifyChunk,
        log.child({ messageId: record.messageId }),
      );
    } catch (error) {
      log.error('chunk failed; SQS will deliver it again', error, { messageId: record.messageId });
      batchItemFailures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures };
}

export const handler = middy<SQSEvent, SQSBatchResponse>().handler(validateChunkHandler);
