// SQS validations: finish each queued request; a record that fails is reported alone so SQS retries
// only it (and, after the queue's receives, moves it to the DLQ where failValidation fails it).
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { validationMessageSchema } from '../domain/single-validation/queue-message';
import { runQueuedValidation } from '../domain/single-validation/run-queued';
import { secretSettings } from '../middlewares/secret-settings';
import { sqsBatch } from '../middlewares/sqs-batch';

// Concurrently: the records' DNS waits overlap, so a batch of ten takes about as long as its slowest.
export const runValidation = sqsBatch(
  validationMessageSchema,
  async (message, { log }) => {
    const outcome = await runQueuedValidation(message, log.child({ companyId: message.companyId }));
    log.info('validation message handled', { requestId: message.requestId, outcome });
  },
  { name: 'runValidation', concurrent: true },
);

export const handler = middy<SQSEvent, SQSBatchResponse>().use(secretSettings()).handler(runValidation);
