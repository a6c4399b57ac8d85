// SQS validations DLQ: a request whose message kept failing is marked failed, so polling answers 500.
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { parseValidationMessage } from '../domain/single-validation/queue-message';
import { failQueuedValidation } from '../domain/single-validation/run-queued';
import { logger } from '../log';

const log = logger.child({ function: 'failValidation' });

export async function failValidation(event: SQSEvent): Promise<SQSBatchResponse> {
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records ?? []) {
    let message;
    try {
      message = parseValidationMessage(record.body);
    } catch (error) {
      log.error('unreadable message on the validations DLQ; dropped', error, { messageId: record.messageId });
      continue;
    }
    try {
      const failed = await failQueuedValidation(message);
      log.warn('validation request failed after its retries', { ...message, marked: failed });
    } catch (error) {
      log.error('could not mark a dead validation failed', error, { messageId: record.messageId });
      batchItemFailures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures };
}

export const handler = middy<SQSEvent, SQSBatchResponse>().handler(failValidation);
