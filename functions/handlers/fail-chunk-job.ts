// SQS chunks DLQ: a chunk that kept failing fails its job with an error a person can act on.
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { chunkMessageSchema } from '../domain/bulk/chunk-messages';
import { failJobOfDeadChunk } from '../domain/bulk/validate-chunk';
import { sqsBatch } from '../middlewares/sqs-batch';

const failChunkJobHandler = sqsBatch(
  chunkMessageSchema,
  async (message, { log }) => {
    await failJobOfDeadChunk(message, log);
  },
  { name: 'failChunkJob' },
);

export const handler = middy<SQSEvent, SQSBatchResponse>().handler(failChunkJobHandler);
