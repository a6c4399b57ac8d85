// SQS chunks: validate each chunk message within the invocation's time (domains not resolved in time
// read some_risk / dns_timeout); failures are reported per message so SQS retries only them.
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { chunkMessageSchema } from '../domain/bulk/chunk-messages';
import { classifyChunk } from '../domain/bulk/classifier';
import { processChunkMessage } from '../domain/bulk/validate-chunk';
import { secretSettings } from '../middlewares/secret-settings';
import { sqsBatch } from '../middlewares/sqs-batch';

function validateChunkHandler(event: SQSEvent, context: Context): Promise<SQSBatchResponse> {
  const time = { remainingMs: () => context.getRemainingTimeInMillis() };
  return sqsBatch(
    chunkMessageSchema,
    (message, { log }) => processChunkMessage(message, classifyChunk, log, time),
    { name: 'validateChunk' },
  )(event);
}

export const handler = middy<SQSEvent, SQSBatchResponse, Error, Context>()
  .use(secretSettings())
  .handler(validateChunkHandler);
