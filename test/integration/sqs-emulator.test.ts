// The local SQS server, driven by the real @aws-sdk/client-sqs over HTTP, as the handlers will drive it.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ChangeMessageVisibilityCommand,
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ListQueuesCommand,
  PurgeQueueCommand,
  QueueDoesNotExist,
  QueueNameExists,
  ReceiptHandleIsInvalid,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
  type Message,
} from '@aws-sdk/client-sqs';
import { md5OfMessageAttributes, startSqsServer, type SqsServer } from '../../local/sqs/server';

let server: SqsServer;
let sqs: SQSClient;
let queueCounter = 0;

function clientFor(url: string): SQSClient {
  return new SQSClient({
    endpoint: url,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
}

beforeAll(async () => {
  server = await startSqsServer({ port: 0 });
  sqs = clientFor(server.url);
});

afterAll(async () => {
  sqs.destroy();
  await server.close();
});

/** A fresh queue per test, so tests share the server but not their messages. */
async function newQueue(attributes: Record<string, string> = {}): Promise<string> {
  queueCounter += 1;
  const { QueueUrl } = await sqs.send(
    new CreateQueueCommand({ QueueName: `test-${queueCounter}`, Attributes: attributes }),
  );
  return QueueUrl!;
}

async function receive(
  queueUrl: string,
  extra: Partial<ConstructorParameters<typeof ReceiveMessageCommand>[0]> = {},
) {
  const { Messages } = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: queueUrl,
      MaxNumberOfMessages: 10,
      MessageSystemAttributeNames: ['All'],
      MessageAttributeNames: ['All'],
      ...extra,
    }),
  );
  return Messages ?? [];
}

async function counts(queueUrl: string) {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: [
        'ApproximateNumberOfMessages',
        'ApproximateNumberOfMessagesNotVisible',
        'ApproximateNumberOfMessagesDelayed',
      ],
    }),
  );
  return {
    visible: Number(Attributes?.ApproximateNumberOfMessages),
    inFlight: Number(Attributes?.ApproximateNumberOfMessagesNotVisible),
    delayed: Number(Attributes?.ApproximateNumberOfMessagesDelayed),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function only(messages: Message[]): Message {
  expect(messages).toHaveLength(1);
  return messages[0]!;
}

describe('local SQS server', () => {
  it('sends, receives and deletes a message, with AWS digests of body and attributes', async () => {
    const queueUrl = await newQueue();
    expect(queueUrl).toBe(`${server.url}/000000000000/test-${queueCounter}`);
    const attributes = { jobId: { DataType: 'String', StringValue: 'job-1' } };

    // The SDK itself rejects a wrong MD5OfMessageBody; the attribute digest is AWS's published example.
    const sent = await sqs.send(
      new SendMessageCommand({
        QueueUrl: queueUrl,
        MessageBody: '{"chunk":1} é',
        MessageAttributes: attributes,
      }),
    );
    expect(sent.MD5OfMessageAttributes).toBe(md5OfMessageAttributes(attributes));
    expect(md5OfMessageAttributes({ SellerName: { DataType: 'String', StringValue: 'Example Store' } })).toBe(
      'cd28f3b68aeee4b2eac9c66f2f694b58',
    );

    const message = only(await receive(queueUrl));
    expect(message).toMatchObject({
      MessageId: sent.MessageId,
      Body: '{"chunk":1} é',
      MD5OfMessageAttributes: sent.MD5OfMessageAttributes,
      MessageAttributes: attributes,
    });
    expect(message.Attributes).toMatchObject({ ApproximateReceiveCount: '1', SenderId: 'test' });
    expect(Number(message.Attributes?.SentTimestamp)).toBeLessThanOrEqual(Date.now());
    expect(Number(message.Attributes?.ApproximateFirstReceiveTimestamp)).toBeGreaterThanOrEqual(
      Number(message.Attributes?.SentTimestamp),
    );

    await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle }));
    expect(await counts(queueUrl)).toEqual({ visible: 0, inFlight: 0, delayed: 0 });
  });

  it('returns message attributes only when asked for them, by name or prefix', async () => {
    const queueUrl = await newQueue();
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: queueUrl,
        MessageBody: 'x',
        MessageAttributes: {
          'trace.id': { DataType: 'String', StringValue: 't' },
          size: { DataType: 'Number', StringValue: '3' },
          blob: { DataType: 'Binary', BinaryValue: new Uint8Array([1, 2, 3]) },
        },
      }),
    );
    const message = only(
      await receive(queueUrl, { MessageAttributeNames: ['trace.*', 'blob'], VisibilityTimeout: 0 }),
    );
    expect(Object.keys(message.MessageAttributes ?? {}).sort()).toEqual(['blob', 'trace.id']);
    expect(message.MessageAttributes?.blob?.BinaryValue).toEqual(new Uint8Array([1, 2, 3]));

    const bare = only(
      await receive(queueUrl, { MessageAttributeNames: [], MessageSystemAttributeNames: [] }),
    );
    expect(bare.MessageAttributes).toBeUndefined();
    expect(bare.Attributes).toBeUndefined();
  });

  it('sends and deletes in batches, reporting each entry', async () => {
    const queueUrl = await newQueue();
    const sent = await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: ['a', 'b', 'c'].map((id) => ({ Id: id, MessageBody: `body-${id}` })),
      }),
    );
    expect(sent.Successful?.map((e) => e.Id).sort()).toEqual(['a', 'b', 'c']);
    expect(sent.Failed ?? []).toEqual([]);

    const messages = await receive(queueUrl);
    expect(messages.map((m) => m.Body).sort()).toEqual(['body-a', 'body-b', 'body-c']);
    const deleted = await sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: [
          ...messages.map((m, i) => ({ Id: `m${i}`, ReceiptHandle: m.ReceiptHandle })),
          { Id: 'bogus', ReceiptHandle: 'not-a-handle' },
        ],
      }),
    );
    expect(deleted.Successful).toHaveLength(3);
    expect(deleted.Failed).toEqual([
      expect.objectContaining({ Id: 'bogus', Code: 'ReceiptHandleIsInvalid' }),
    ]);
    expect(await counts(queueUrl)).toEqual({ visible: 0, inFlight: 0, delayed: 0 });
  });

  it('answers a long poll as soon as a message is sent', async () => {
    const queueUrl = await newQueue();
    const started = Date.now();
    const polling = receive(queueUrl, { WaitTimeSeconds: 10 });
    await sleep(300);
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'wake up' }));
    expect(only(await polling).Body).toBe('wake up');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('ends an empty long poll after WaitTimeSeconds with no messages', async () => {
    const queueUrl = await newQueue();
    const started = Date.now();
    expect(await receive(queueUrl, { WaitTimeSeconds: 1 })).toEqual([]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it('redelivers an undeleted message after its visibility timeout, with a new handle and a higher receive count', async () => {
    const queueUrl = await newQueue({ VisibilityTimeout: '1' });
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'again' }));

    const first = only(await receive(queueUrl));
    expect(await receive(queueUrl)).toEqual([]);
    expect(await counts(queueUrl)).toEqual({ visible: 0, inFlight: 1, delayed: 0 });

    // The long poll wakes when the timeout runs out rather than at the end of its wait.
    const started = Date.now();
    const second = only(await receive(queueUrl, { WaitTimeSeconds: 5 }));
    expect(Date.now() - started).toBeLessThan(2000);
    expect(second.MessageId).toBe(first.MessageId);
    expect(second.Attributes?.ApproximateReceiveCount).toBe('2');
    expect(second.Attributes?.ApproximateFirstReceiveTimestamp).toBe(
      first.Attributes?.ApproximateFirstReceiveTimestamp,
    );
    expect(second.ReceiptHandle).not.toBe(first.ReceiptHandle);

    // A stale handle "succeeds" as on AWS but leaves the message to the consumer now holding it.
    await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: first.ReceiptHandle }));
    expect(await counts(queueUrl)).toEqual({ visible: 0, inFlight: 1, delayed: 0 });
    await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: second.ReceiptHandle }));
    expect(await counts(queueUrl)).toEqual({ visible: 0, inFlight: 0, delayed: 0 });
  });

  it('honours a VisibilityTimeout given on ReceiveMessage over the queue default', async () => {
    const queueUrl = await newQueue({ VisibilityTimeout: '600' });
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'short' }));
    only(await receive(queueUrl, { VisibilityTimeout: 1 }));
    await sleep(1100);
    expect(only(await receive(queueUrl)).Attributes?.ApproximateReceiveCount).toBe('2');
  });

  it('ChangeMessageVisibility 0 releases a message at once and a longer timeout keeps it hidden', async () => {
    const queueUrl = await newQueue({ VisibilityTimeout: '1' });
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'vis' }));

    const first = only(await receive(queueUrl, { VisibilityTimeout: 600 }));
    await sqs.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: queueUrl,
        ReceiptHandle: first.ReceiptHandle,
        VisibilityTimeout: 0,
      }),
    );
    const second = only(await receive(queueUrl));

    await sqs.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: queueUrl,
        ReceiptHandle: second.ReceiptHandle,
        VisibilityTimeout: 3,
      }),
    );
    await sleep(1300); // past the queue's 1 s timeout, still inside the 3 s one
    expect(await receive(queueUrl)).toEqual([]);

    // The handle of the earlier receive no longer controls the message.
    await expect(
      sqs.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: queueUrl,
          ReceiptHandle: first.ReceiptHandle,
          VisibilityTimeout: 0,
        }),
      ),
    ).rejects.toMatchObject({ name: 'InvalidParameterValue' });
  });

  it('delays new messages by the queue DelaySeconds, or by the message own DelaySeconds', async () => {
    const queueUrl = await newQueue({ DelaySeconds: '1' });
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'queue delay' }));
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'no delay', DelaySeconds: 0 }));

    expect(await counts(queueUrl)).toEqual({ visible: 1, inFlight: 0, delayed: 1 });
    expect((await receive(queueUrl)).map((m) => m.Body)).toEqual(['no delay']);

    const started = Date.now();
    expect(only(await receive(queueUrl, { WaitTimeSeconds: 5 })).Body).toBe('queue delay');
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('moves a message received more than maxReceiveCount times to the dead-letter queue', async () => {
    const dlqUrl = await newQueue();
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: dlqUrl, AttributeNames: ['QueueArn'] }),
    );
    const dlqArn = Attributes?.QueueArn;
    expect(dlqArn).toBe(`arn:aws:sqs:us-east-1:000000000000:test-${queueCounter}`);
    const redrivePolicy = JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: 2 });
    const queueUrl = await newQueue({ VisibilityTimeout: '1', RedrivePolicy: redrivePolicy });
    const { MessageId } = await sqs.send(
      new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'poison' }),
    );

    expect(only(await receive(queueUrl)).Attributes?.ApproximateReceiveCount).toBe('1');
    expect(only(await receive(queueUrl, { WaitTimeSeconds: 5 })).Attributes?.ApproximateReceiveCount).toBe(
      '2',
    );
    // The third receive finds it due again, moves it, and has nothing left to return.
    expect(await receive(queueUrl, { WaitTimeSeconds: 2 })).toEqual([]);
    expect(await counts(queueUrl)).toEqual({ visible: 0, inFlight: 0, delayed: 0 });

    const dead = only(await receive(dlqUrl));
    expect(dead).toMatchObject({ MessageId, Body: 'poison' });
    expect(dead.Attributes?.DeadLetterQueueSourceArn).toBe(server.queueArn(`test-${queueCounter}`));

    const policy = await sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: queueUrl,
        AttributeNames: ['RedrivePolicy', 'VisibilityTimeout'],
      }),
    );
    expect(policy.Attributes).toEqual({ RedrivePolicy: redrivePolicy, VisibilityTimeout: '1' });
  });

  it('counts visible, in-flight and delayed messages in GetQueueAttributes', async () => {
    const queueUrl = await newQueue({ VisibilityTimeout: '60' });
    await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: [
          { Id: '1', MessageBody: 'one' },
          { Id: '2', MessageBody: 'two' },
          { Id: '3', MessageBody: 'three' },
          { Id: '4', MessageBody: 'later', DelaySeconds: 60 },
        ],
      }),
    );
    await receive(queueUrl, { MaxNumberOfMessages: 1 });
    expect(await counts(queueUrl)).toEqual({ visible: 2, inFlight: 1, delayed: 1 });

    await sqs.send(new PurgeQueueCommand({ QueueUrl: queueUrl }));
    expect(await counts(queueUrl)).toEqual({ visible: 0, inFlight: 0, delayed: 0 });
  });

  it('creates queues idempotently and refuses the same name with different attributes', async () => {
    const first = await sqs.send(
      new CreateQueueCommand({ QueueName: 'same', Attributes: { VisibilityTimeout: '5' } }),
    );
    const again = await sqs.send(
      new CreateQueueCommand({ QueueName: 'same', Attributes: { VisibilityTimeout: '5' } }),
    );
    expect(again.QueueUrl).toBe(first.QueueUrl);
    await expect(
      sqs.send(new CreateQueueCommand({ QueueName: 'same', Attributes: { VisibilityTimeout: '6' } })),
    ).rejects.toBeInstanceOf(QueueNameExists);

    expect((await sqs.send(new GetQueueUrlCommand({ QueueName: 'same' }))).QueueUrl).toBe(first.QueueUrl);
    expect((await sqs.send(new ListQueuesCommand({ QueueNamePrefix: 'sam' }))).QueueUrls).toEqual([
      first.QueueUrl,
    ]);
  });

  it('raises the SDK typed errors: QueueDoesNotExist, ReceiptHandleIsInvalid', async () => {
    await expect(sqs.send(new GetQueueUrlCommand({ QueueName: 'nope' }))).rejects.toBeInstanceOf(
      QueueDoesNotExist,
    );
    await expect(
      sqs.send(new SendMessageCommand({ QueueUrl: server.queueUrl('nope'), MessageBody: 'x' })),
    ).rejects.toMatchObject({ name: 'QueueDoesNotExist', $metadata: { httpStatusCode: 400 } });

    const queueUrl = await newQueue();
    await expect(
      sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: 'garbage' })),
    ).rejects.toBeInstanceOf(ReceiptHandleIsInvalid);
    await expect(
      sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 11 })),
    ).rejects.toMatchObject({ name: 'InvalidParameterValue' });
  });

  it('keeps queues and messages under dataDir across a restart', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'mailvet-sqs-'));
    try {
      const before = await startSqsServer({ port: 0, dataDir });
      const client = clientFor(before.url);
      const { QueueUrl } = await client.send(new CreateQueueCommand({ QueueName: 'kept' }));
      await client.send(new SendMessageCommand({ QueueUrl, MessageBody: 'survives' }));
      client.destroy();
      await before.close();

      const after = await startSqsServer({ port: 0, dataDir });
      const again = clientFor(after.url);
      try {
        const { Messages } = await again.send(
          new ReceiveMessageCommand({ QueueUrl: after.queueUrl('kept') }),
        );
        expect(Messages?.map((m) => m.Body)).toEqual(['survives']);
      } finally {
        again.destroy();
        await after.close();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
