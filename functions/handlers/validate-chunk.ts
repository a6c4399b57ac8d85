// SQS chunks: validate each chunk message; failures are reported per message so SQS retries only them.
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { chunkMessageSchema } from '../domain/bulk/chunk-messages';
import { classifyChunk } from '../domain/bulk/classifier';
import { processChunkMessage } from '../domain/bulk/validate-chunk';
import { secretSettings } from '../middlewares/secret-settings';
import { sqsBatch } from '../middlewares/sqs-batch';

const validateChunkHandler = sqsBatch(
  chunkMessageSchema,
  (message, { log }) => processChunkMessage(message, classifyChunk, log),
  { name: 'validateChunk' },
);

export const handler = middy<SQSEvent, SQSBatchResponse>()
  .use(secretSettings())
  .handler(validateChunkHandler);
