// SQS validations: finish each queued request; a record that fails is reported alone so SQS retries
// only it (and, after the queue's receives, moves it to the DLQ where failValidation fails it).
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { parseValidationMessage } from '../domain/single-validation/queue-message';
import { runQueuedValidation } from '../domain/single-validation/run-queued';
import { logger } from '../log';

const log = logger.child({ function: 'runValidation' });

export async function runValidation(event: SQSEvent): Promise<SQSBatchResponse> {
  // Concurrently: the records' DNS waits overlap, so a batch of ten takes about as long as its slowest.
  const failed = await Promise.all((event.Records ?? []).map(handleRecord));
  return {
    batchItemFailures: failed
      .filter((id): id is string => id !== undefined)
      .map((id) => ({ itemIdentifier: id })),
  };
}

/** The record's messageId when SQS must deliver it again, else undefined. */
async function handleRecord(record: SQSRecord): Promise<string | undefined> {
  const recordLog = log.child({ messageId: record.messageId });
  let message;
  try {
    message = parseValidationMessage(record.body);
  } catch (error) {
    // Not a validation message: no request to finish, and no retry will change that.
    recordLog.error('unreadable message on the validations queue; dropped', error);
    return undefined;
  }
  try {
    const outcome = await runQueuedValidation(message, recordLog.child({ companyId: message.companyId }));
    recordLog.info('validation message handled', { requestId: message.requestId, outcome });
    return undefined;
  } catch (error) {
    recordLog.error('validation failed; SQS will deliver it again', error, { requestId: message.requestId });
    return record.messageId;
  }
}

export const handler = middy<SQSEvent, SQSBatchResponse>().handler(runValidation);
