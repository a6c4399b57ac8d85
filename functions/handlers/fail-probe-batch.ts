// SQS probes DLQ: a probe batch that kept failing settles with the verdicts it has; its other addresses
// keep their DNS verdicts, so the job still completes.
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { probeMessageSchema } from '../domain/bulk/probe-messages';
import { settleDeadProbeBatch } from '../domain/bulk/probe-stage';
import { sqsBatch } from '../middlewares/sqs-batch';

const failProbeBatchHandler = sqsBatch(
  probeMessageSchema,
  async (message, { log }) => {
    await settleDeadProbeBatch(message, log);
  },
  { name: 'failProbeBatch' },
);

export const handler = middy<SQSEvent, SQSBatchResponse>().handler(failProbeBatchHandler);
