// SQS validations DLQ: a request whose message kept failing is marked failed, so polling answers 500.
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { validationMessageSchema } from '../domain/single-validation/queue-message';
import { failQueuedValidation } from '../domain/single-validation/run-queued';
import { sqsBatch } from '../middlewares/sqs-batch';

export const failValidation = sqsBatch(
  validationMessageSchema,
  async (message, { log }) => {
    const failed = await failQueuedValidation(message);
    log.warn('validation request failed after its retries', { ...message, marked: failed });
  },
  { name: 'failValidation' },
);

export const handler = middy<SQSEvent, SQSBatchResponse>().handler(failValidation);
