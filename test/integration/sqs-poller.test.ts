// The local event source mapping: the poller feeding the local SQS server to a handler as Lambda would.
import { createHash } from 'node:crypto';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { startQueuePoller, type PollerLogger, type QueuePoller } from '../../local/sqs/poller';
import { startSqsServer, type SqsServer } from '../../local/sqs/server';

let server: SqsServer;
let sqs: SQSClient;
const pollers: QueuePoller[] = [];
let queueCounter = 0;

const quiet: PollerLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };

beforeAll(async () => {
  server = await startSqsServer({ port: 0 });
  sqs = new SQSClient({
    endpoint: server.url,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
});

afterEach(async () => {
  await Promise.all(pollers.splice(0).map((p) => p.stop()));
});

afterAll(async () => {
  sqs.destroy();
  await server.close();
});

interface TestQueue {
  url: string;
  arn: string;
  dlqUrl: string;
}

/** A queue with its dead-letter queue, like each queue of the stack. */
async function newQueue(visibilityTimeout: number, maxReceiveCount: number): Promise<TestQueue> {
  queueCounter += 1;
  const name = `poller-${queueCounter}`;
  const dlq = await sqs.send(new CreateQueueCommand({ QueueName: `${name}-dlq` }));
  const queue = await sqs.send(
    new CreateQueueCommand({
      QueueName: name,
      Attributes: {
        VisibilityTimeout: String(visibilityTimeout),
        RedrivePolicy: JSON.stringify({
          deadLetterTargetArn: server.queueArn(`${name}-dlq`),
          maxReceiveCount,
        }),
      },
    }),
  );
  return { url: queue.QueueUrl!, arn: server.queueArn(name), dlqUrl: dlq.QueueUrl! };
}

function poll(
  queue: TestQueue,
  handler: (event: SQSEvent) => Promise<SQSBatchResponse | void>,
  options: { batchSize?: number; maxConcurrency?: number; timeoutSeconds?: number } = {},
): QueuePoller {
  const poller = startQueuePoller({
    client: sqs,
    queueUrl: queue.url,
    queueArn: queue.arn,
    handler,
    batchSize: options.batchSize ?? 10,
    maxConcurrency: options.maxConcurrency ?? 2,
    functionName: 'testConsumer',
    ...(options.timeoutSeconds !== undefined ? { timeoutSeconds: options.timeoutSeconds } : {}),
    logger: quiet,
  });
  pollers.push(poller);
  return poller;
}

async function depth(queueUrl: string): Promise<number> {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return (
    Number(Attributes?.ApproximateNumberOfMessages) +
    Number(Attributes?.ApproximateNumberOfMessagesNotVisible)
  );
}

async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('SQS queue poller', () => {
  it('hands the handler Lambda-shaped records and deletes them when it succeeds', async () => {
    const queue = await newQueue(30, 3);
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: queue.url,
        MessageBody: '{"jobId":"j1"}',
        MessageAttributes: { kind: { DataType: 'String', StringValue: 'chunk' } },
      }),
    );
    const events: SQSEvent[] = [];
    poll(
      queue,
      async (event) => {
        events.push(event);
      },
      { timeoutSeconds: 5 },
    );
    await waitFor(() => events.length === 1);
    const record = events[0]!.Records[0]!;
    expect(record).toMatchObject<Partial<SQSRecord>>({
      body: '{"jobId":"j1"}',
      eventSource: 'aws:sqs',
      eventSourceARN: queue.arn,
      awsRegion: 'us-east-1',
      md5OfBody: createHash('md5').update('{"jobId":"j1"}').digest('hex'),
      messageAttributes: {
        kind: { stringValue: 'chunk', stringListValues: [], binaryListValues: [], dataType: 'String' },
      },
    });
    expect(record.attributes).toMatchObject({ ApproximateReceiveCount: '1', SenderId: 'test' });
    expect(record.attributes.SentTimestamp).toMatch(/^\d+$/);
    expect(record.attributes.ApproximateFirstReceiveTimestamp).toMatch(/^\d+$/);
    expect(record.receiptHandle).not.toBe('');
    await waitFor(async () => (await depth(queue.url)) === 0);
  });

  it('gives the handler a context with a deadline from timeoutSeconds', async () => {
    const queue = await newQueue(30, 3);
    await sqs.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: 'ctx' }));
    const seen: Array<{ functionName: string; awsRequestId: string; remaining: number }> = [];
    const poller = startQueuePoller({
      client: sqs,
      queueUrl: queue.url,
      queueArn: queue.arn,
      batchSize: 1,
      maxConcurrency: 1,
      functionName: 'validateChunk',
      timeoutSeconds: 120,
      logger: quiet,
      handler: async (_event, context) => {
        seen.push({
          functionName: context.functionName,
          awsRequestId: context.awsRequestId,
          remaining: context.getRemainingTimeInMillis(),
        });
      },
    });
    pollers.push(poller);
    await waitFor(() => seen.length === 1);
    expect(seen[0]!.functionName).toBe('validateChunk');
    expect(seen[0]!.awsRequestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen[0]!.remaining).toBeGreaterThan(119_000);
    expect(seen[0]!.remaining).toBeLessThanOrEqual(120_000);
  });

  it('redelivers a message whose handler fails after the visibility timeout, then moves it to the DLQ after maxReceiveCount', async () => {
    const queue = await newQueue(1, 2);
    const { MessageId } = await sqs.send(
      new SendMessageCommand({ QueueUrl: queue.url, MessageBody: 'poison' }),
    );
    const attempts: Array<{ at: number; receiveCount: string }> = [];
    poll(queue, async (event) => {
      for (const r of event.Records)
        attempts.push({ at: Date.now(), receiveCount: r.attributes.ApproximateReceiveCount });
      throw new Error('handler blew up');
    });

    // Only the poller reads the queue, so the redrive shows as the message arriving on the DLQ.
    let dead: { MessageId?: string; Body?: string } | undefined;
    await waitFor(async () => {
      const { Messages } = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: queue.dlqUrl, WaitTimeSeconds: 1 }),
      );
      dead = Messages?.[0];
      return dead !== undefined;
    });
    expect(dead).toMatchObject({ MessageId, Body: 'poison' });
    expect(attempts.map((a) => a.receiveCount)).toEqual(['1', '2']);
    // Redelivered no sooner than the visibility timeout.
    expect(attempts[1]!.at - attempts[0]!.at).toBeGreaterThanOrEqual(950);
    expect(await depth(queue.url)).toBe(0);
  });

  it('redelivers only the records a partial batch response names as failed', async () => {
    const queue = await newQueue(1, 5);
    await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queue.url,
        Entries: ['a', 'b', 'c'].map((id) => ({ Id: id, MessageBody: id })),
      }),
    );
    const batches: string[][] = [];
    poll(queue, async (event) => {
      batches.push(event.Records.map((r) => r.body).sort());
      // "b" fails the first time only.
      const failed = batches.length === 1 ? event.Records.filter((r) => r.body === 'b') : [];
      return { batchItemFailures: failed.map((r) => ({ itemIdentifier: r.messageId })) };
    });

    await waitFor(() => batches.length === 2);
    expect(batches).toEqual([['a', 'b', 'c'], ['b']]);
    await waitFor(async () => (await depth(queue.url)) === 0);
  });

  it('keeps the whole batch when the partial response names an unknown record, as Lambda does', async () => {
    const queue = await newQueue(1, 5);
    await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queue.url,
        Entries: ['x', 'y'].map((id) => ({ Id: id, MessageBody: id })),
      }),
    );
    const batches: string[][] = [];
    poll(queue, async (event) => {
      batches.push(event.Records.map((r) => r.body).sort());
      if (batches.length === 1) return { batchItemFailures: [{ itemIdentifier: 'no-such-message' }] };
    });
    await waitFor(() => batches.length === 2);
    expect(batches).toEqual([
      ['x', 'y'],
      ['x', 'y'],
    ]);
  });

  it('counts a handler that outlives timeoutSeconds as failed', async () => {
    const queue = await newQueue(2, 5);
    await sqs.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: 'slow' }));
    const receiveCounts: string[] = [];
    poll(
      queue,
      async (event) => {
        receiveCounts.push(event.Records[0]!.attributes.ApproximateReceiveCount);
        if (receiveCounts.length === 1) await new Promise((resolve) => setTimeout(resolve, 1500));
      },
      { timeoutSeconds: 1 },
    );
    await waitFor(() => receiveCounts.length === 2);
    expect(receiveCounts).toEqual(['1', '2']);
    await waitFor(async () => (await depth(queue.url)) === 0);
  });

  it('runs at most maxConcurrency batches at once', async () => {
    const queue = await newQueue(30, 3);
    await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queue.url,
        Entries: Array.from({ length: 10 }, (_, i) => ({ Id: `m${i}`, MessageBody: String(i) })),
      }),
    );
    let running = 0;
    let peak = 0;
    const handled: string[] = [];
    const poller = poll(
      queue,
      async (event) => {
        running += 1;
        peak = Math.max(peak, running);
        await new Promise((resolve) => setTimeout(resolve, 200));
        handled.push(...event.Records.map((r) => r.body));
        running -= 1;
      },
      { batchSize: 1, maxConcurrency: 3 },
    );
    await waitFor(() => handled.length === 10);
    await poller.idle();
    expect(peak).toBe(3);
    expect(handled.sort()).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
    await waitFor(async () => (await depth(queue.url)) === 0);
  });

  it('stops at once in the middle of a long poll, and takes no message afterwards', async () => {
    const queue = await newQueue(30, 3);
    const handled: string[] = [];
    const poller = poll(queue, async (event) => {
      handled.push(...event.Records.map((r) => r.body));
    });
    await new Promise((resolve) => setTimeout(resolve, 300)); // the poller is now waiting on the server
    const started = Date.now();
    await poller.stop();
    expect(Date.now() - started).toBeLessThan(1000);

    await sqs.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: 'after stop' }));
    const { Messages } = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: queue.url, WaitTimeSeconds: 1 }),
    );
    expect(Messages?.map((m) => m.Body)).toEqual(['after stop']);
    expect(handled).toEqual([]);
  });
});
