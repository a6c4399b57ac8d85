// Feeds an SQS queue to a handler the way Lambda's SQS event source mapping does, for the local runtime:
// batches of up to `batchSize` records, at most `maxConcurrency` batches at once, partial batch responses.
import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  type Message,
  type MessageAttributeValue,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSMessageAttributes, SQSRecord } from 'aws-lambda';
import { logger as defaultLogger } from '../../functions/log';
import { lambdaContext } from '../events';

export interface PollerLogger {
  info(message: string, data?: Record<string, unknown>): void;
  warn(message: string, data?: Record<string, unknown>): void;
  error(message: string, error?: unknown, data?: Record<string, unknown>): void;
}

export type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | void>;

export interface QueuePollerOptions {
  client: SQSClient;
  queueUrl: string;
  queueArn: string;
  handler: SqsHandler;
  /** Records per invocation; SQS returns at most 10 per receive, so larger values act as 10. */
  batchSize: number;
  /** Most batches handled at once. */
  maxConcurrency: number;
  functionName: string;
  /**
   * The function's timeout: an invocation still running then counts as failed (its messages stay on the
   * queue) although, unlike Lambda, its promise cannot be stopped. Unset: no limit, and the context
   * reports Lambda's maximum of 900 s.
   */
  timeoutSeconds?: number;
  logger?: PollerLogger;
  /** Long-poll wait per receive; 20 like Lambda's pollers. */
  waitTimeSeconds?: number;
  /**
   * Asked when a batch fails, with the time its invocation started: true makes its failed messages visible
   * again at once instead of after the visibility timeout (the local runtime's answer to a failure of its
   * own machinery, e.g. DynamoDB Local restarting). Their receive count still grows.
   */
  retryAtOnce?: (invocationStartedAt: number) => boolean | Promise<boolean>;
}

export interface QueuePoller {
  /** Stops receiving at once (aborting the long poll) and resolves once the batches in flight settled. */
  stop(): Promise<void>;
  /** Resolves when no batch is in flight at the moment of the call or later. */
  idle(): Promise<void>;
}

function lambdaMessageAttributes(
  attributes: Record<string, MessageAttributeValue> | undefined,
): SQSMessageAttributes {
  const result: SQSMessageAttributes = {};
  for (const [name, value] of Object.entries(attributes ?? {})) {
    result[name] = {
      // Lambda carries binary values base64-encoded, and always includes the (unused) list fields.
      ...(value.StringValue !== undefined ? { stringValue: value.StringValue } : {}),
      ...(value.BinaryValue !== undefined
        ? { binaryValue: Buffer.from(value.BinaryValue).toString('base64') }
        : {}),
      stringListValues: value.StringListValues ?? [],
      binaryListValues: (value.BinaryListValues ?? []).map((b) => Buffer.from(b).toString('base64')),
      dataType: value.DataType ?? 'String',
    };
  }
  return result;
}

/** The record Lambda builds from one received message. */
export function sqsRecord(message: Message, queueArn: string): SQSRecord {
  const a = message.Attributes ?? {};
  return {
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body: message.Body ?? '',
    attributes: {
      ApproximateReceiveCount: a.ApproximateReceiveCount ?? '1',
      SentTimestamp: a.SentTimestamp ?? '',
      SenderId: a.SenderId ?? '',
      ApproximateFirstReceiveTimestamp: a.ApproximateFirstReceiveTimestamp ?? '',
      ...(a.AWSTraceHeader ? { AWSTraceHeader: a.AWSTraceHeader } : {}),
      ...(a.DeadLetterQueueSourceArn ? { DeadLetterQueueSourceArn: a.DeadLetterQueueSourceArn } : {}),
    },
    messageAttributes: lambdaMessageAttributes(message.MessageAttributes),
    md5OfBody: message.MD5OfBody ?? '',
    ...(message.MD5OfMessageAttributes ? { md5OfMessageAttributes: message.MD5OfMessageAttributes } : {}),
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: queueArn.split(':')[3] ?? 'us-east-1',
  };
}

/**
 * Which messages to delete after an invocation, by Lambda's rules for ReportBatchItemFailures: none if
 * the handler threw; all but the listed ones otherwise; none if a listed identifier is empty or not in the
 * batch (Lambda treats such a response as a failure of the whole batch).
 */
function messagesToDelete(records: SQSRecord[], response: unknown): SQSRecord[] {
  const failures = (response as Partial<SQSBatchResponse> | undefined | null)?.batchItemFailures;
  if (failures === undefined || failures === null) return records;
  if (!Array.isArray(failures)) return [];
  const ids = new Set(records.map((r) => r.messageId));
  const failed = new Set<string>();
  for (const failure of failures as Array<{ itemIdentifier?: unknown } | null>) {
    const id = failure?.itemIdentifier;
    if (typeof id !== 'string' || !ids.has(id)) return [];
    failed.add(id);
  }
  return records.filter((r) => !failed.has(r.messageId));
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

export function startQueuePoller(options: QueuePollerOptions): QueuePoller {
  const log = options.logger ?? defaultLogger.child({ function: options.functionName });
  const batchSize = Math.max(1, Math.min(10, options.batchSize));
  const maxConcurrency = Math.max(1, options.maxConcurrency);
  const waitTimeSeconds = options.waitTimeSeconds ?? 20;
  const stopping = new AbortController();
  const inFlight = new Set<Promise<void>>();
  let slotFreed: (() => void) | undefined;

  async function invoke(records: SQSRecord[]): Promise<unknown> {
    const timeoutMs = (options.timeoutSeconds ?? 900) * 1000;
    const context = lambdaContext(options.functionName, timeoutMs);
    const invocation = options.handler({ Records: records }, context);
    if (options.timeoutSeconds === undefined) return invocation;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`Task timed out after ${options.timeoutSeconds}.00 seconds`)),
        timeoutMs,
      );
    });
    try {
      return await Promise.race([invocation, timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  async function runBatch(messages: Message[]): Promise<void> {
    const records = messages.map((m) => sqsRecord(m, options.queueArn));
    const startedAt = Date.now();
    let toDelete: SQSRecord[] = [];
    try {
      toDelete = messagesToDelete(records, await invoke(records));
      if (toDelete.length < records.length) {
        log.warn('sqs batch partly failed', {
          records: records.length,
          failed: records.length - toDelete.length,
        });
      }
    } catch (error) {
      // Lambda leaves the whole batch on the queue; it comes back after the visibility timeout.
      log.error('sqs handler failed', error, { records: records.length });
    }
    if (toDelete.length < records.length && (await options.retryAtOnce?.(startedAt))) {
      await release(records.filter((r) => !toDelete.includes(r)));
    }
    if (toDelete.length === 0) return;
    try {
      const result = await options.client.send(
        new DeleteMessageBatchCommand({
          QueueUrl: options.queueUrl,
          Entries: toDelete.map((r, i) => ({ Id: String(i), ReceiptHandle: r.receiptHandle })),
        }),
      );
      if (result.Failed?.length) log.warn('sqs delete failed for some messages', { failed: result.Failed });
    } catch (error) {
      log.error('sqs delete failed', error, { records: toDelete.length });
    }
  }

  async function release(records: SQSRecord[]): Promise<void> {
    try {
      await options.client.send(
        new ChangeMessageVisibilityBatchCommand({
          QueueUrl: options.queueUrl,
          Entries: records.map((r, i) => ({
            Id: String(i),
            ReceiptHandle: r.receiptHandle,
            VisibilityTimeout: 0,
          })),
        }),
      );
    } catch (error) {
      log.warn('sqs could not release failed messages; they return after the visibility timeout', {
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }

  function dispatch(messages: Message[]): void {
    const run = runBatch(messages).finally(() => {
      inFlight.delete(run);
      slotFreed?.();
    });
    inFlight.add(run);
  }

  async function loop(): Promise<void> {
    const signal = stopping.signal;
    while (!signal.aborted) {
      while (inFlight.size >= maxConcurrency && !signal.aborted) {
        await new Promise<void>((resolve) => {
          const done = () => {
            signal.removeEventListener('abort', done);
            slotFreed = undefined;
            resolve();
          };
          slotFreed = done;
          signal.addEventListener('abort', done, { once: true });
        });
      }
      if (signal.aborted) break;
      try {
        const { Messages } = await options.client.send(
          new ReceiveMessageCommand({
            QueueUrl: options.queueUrl,
            MaxNumberOfMessages: batchSize,
            WaitTimeSeconds: waitTimeSeconds,
            MessageSystemAttributeNames: ['All'],
            MessageAttributeNames: ['All'],
          }),
          { abortSignal: signal },
        );
        if (Messages && Messages.length > 0) dispatch(Messages);
      } catch (error) {
        if (signal.aborted) break;
        // The queue or the server may not be up yet, or may be restarting: retry, like Lambda's pollers.
        log.warn('sqs receive failed, retrying', {
          error: error instanceof Error ? error.message : String(error),
        });
        await sleep(1000, signal);
      }
    }
  }

  const loopDone = loop().catch((error: unknown) => log.error('sqs poller stopped unexpectedly', error));

  async function idle(): Promise<void> {
    while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
  }

  return {
    async stop() {
      stopping.abort();
      await loopDone;
      await idle();
    },
    idle,
  };
}
