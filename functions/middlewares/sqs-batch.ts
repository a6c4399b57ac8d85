// The one loop of every SQS consumer: parse each record with the queue's zod schema, hand it to the use
// case, and report the records SQS must deliver again (partial batch response, batchItemFailures).
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { z } from 'zod';
import { Logger, logger } from '../log';
import { flushCommandMetrics } from '../store/dynamodb';

/** 'retry': SQS delivers the record again (after its visibility timeout); anything else acknowledges. */
export type RecordOutcome = 'retry' | void;

export interface RecordContext {
  record: SQSRecord;
  /** The function's logger with the record's messageId. */
  log: Logger;
}

export interface SqsBatchOptions {
  /** The function's name in functions/wiring.ts, for the logs. */
  name: string;
  /** true: the records run at once (their network waits overlap); false: one after another. */
  concurrent?: boolean;
  /**
   * A body that is not JSON or not the schema's shape can never succeed, so it is logged and dropped
   * (acknowledged) after this hook, if any, has seen it. A hook that throws makes SQS deliver it again.
   */
  onUnreadable?: (record: SQSRecord, log: Logger) => Promise<void>;
}

export function sqsBatch<T>(
  schema: z.ZodType<T>,
  handle: (message: T, context: RecordContext) => Promise<RecordOutcome>,
  options: SqsBatchOptions,
): (event: SQSEvent) => Promise<SQSBatchResponse> {
  const functionLog = logger.child({ function: options.name });

  async function handleRecord(record: SQSRecord): Promise<boolean> {
    const log = functionLog.child({ messageId: record.messageId });
    let message: T;
    try {
      message = schema.parse(JSON.parse(record.body));
    } catch (error) {
      log.error('unreadable queue message; dropped', error);
      try {
        await options.onUnreadable?.(record, log);
        return false;
      } catch (hookError) {
        log.error('could not handle an unreadable message; SQS will deliver it again', hookError);
        return true;
      }
    }
    try {
      return (await handle(message, { record, log })) === 'retry';
    } catch (error) {
      log.error('message failed; SQS will deliver it again', error);
      return true;
    }
  }

  return async (event) => {
    const records = event.Records ?? [];
    const retry: boolean[] = [];
    if (options.concurrent) retry.push(...(await Promise.all(records.map(handleRecord))));
    else for (const record of records) retry.push(await handleRecord(record));
    // the batch's DynamoDB command counts, before Lambda freezes the process
    flushCommandMetrics();
    return {
      batchItemFailures: records
        .filter((_, i) => retry[i])
        .map((record) => ({ itemIdentifier: record.messageId })),
    };
  };
}
