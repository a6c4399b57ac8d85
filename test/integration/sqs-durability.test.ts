// The local SQS journal: what a request changed is on disk when its answer arrives. Each test copies the
// data directory the moment an answer arrives (what a SIGKILL then would leave) and starts a second server
// on the copy.
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ChangeMessageVisibilityCommand,
  CreateQueueCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { startSqsServer, type SqsServer, type SqsServerOptions } from '../../local/sqs/server';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

function temporaryDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mailvet-sqs-durable-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function start(
  dataDir: string,
  options: Partial<SqsServerOptions> = {},
): Promise<{ server: SqsServer; sqs: SQSClient; queueUrl: string }> {
  const server = await startSqsServer({ port: 0, dataDir, ...options });
  const sqs = new SQSClient({
    endpoint: server.url,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  cleanup.push(async () => {
    sqs.destroy();
    await server.close();
  });
  const { QueueUrl } = await sqs.send(
    new CreateQueueCommand({ QueueName: 'work', Attributes: { VisibilityTimeout: '600' } }),
  );
  return { server, sqs, queueUrl: QueueUrl! };
}

/**
 * The data directory as a SIGKILL at this moment would leave it. Each file is read, not copied with
 * cpSync / copyFileSync: the server may still be compacting (truncating sqs.log on libuv's thread pool
 * after the answer went out), and Node 20's copyFileSync loops forever when its source shrinks under it
 * (sendfile keeps returning 0 for bytes it was told exist), which hung a whole CI run in this file.
 */
function crashCopy(dataDir: string): string {
  const copy = temporaryDir();
  for (const name of readdirSync(dataDir)) writeFileSync(join(copy, name), readFileSync(join(dataDir, name)));
  return copy;
}

async function counts(sqs: SQSClient, queueUrl: string): Promise<{ visible: number; inFlight: number }> {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['All'] }),
  );
  return {
    visible: Number(Attributes!.ApproximateNumberOfMessages),
    inFlight: Number(Attributes!.ApproximateNumberOfMessagesNotVisible),
  };
}

describe('the local SQS journal', () => {
  it('has a sent message on disk when SendMessage answers', async () => {
    const dataDir = temporaryDir();
    const { sqs, queueUrl } = await start(dataDir);
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'one' }));
    await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: [
          { Id: 'a', MessageBody: 'two' },
          { Id: 'b', MessageBody: 'three' },
        ],
      }),
    );
    const after = await start(crashCopy(dataDir));
    const { Messages } = await after.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: after.queueUrl, MaxNumberOfMessages: 10 }),
    );
    expect(Messages?.map((m) => m.Body).sort()).toEqual(['one', 'three', 'two']);
  });

  it('has a delete on disk when DeleteMessage answers', async () => {
    const dataDir = temporaryDir();
    const { sqs, queueUrl } = await start(dataDir);
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'done' }));
    const { Messages } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl }));
    await sqs.send(
      new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: Messages![0]!.ReceiptHandle }),
    );
    const after = await start(crashCopy(dataDir), { releaseInFlightOnStart: true });
    expect(await counts(after.sqs, after.queueUrl)).toEqual({ visible: 0, inFlight: 0 });
  });

  it('keeps a received message hidden across a restart, or releases it at once when asked to', async () => {
    const dataDir = temporaryDir();
    const { sqs, queueUrl } = await start(dataDir);
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'held' }));
    await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl }));

    const kept = await start(crashCopy(dataDir));
    expect(await counts(kept.sqs, kept.queueUrl)).toEqual({ visible: 0, inFlight: 1 });

    const released = await start(crashCopy(dataDir), { releaseInFlightOnStart: true });
    const { Messages } = await released.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: released.queueUrl, MessageSystemAttributeNames: ['All'] }),
    );
    expect(Messages?.map((m) => [m.Body, m.Attributes?.ApproximateReceiveCount])).toEqual([['held', '2']]);
  });

  it('keeps a visibility timeout the consumer chose (a backoff) across a restart', async () => {
    const dataDir = temporaryDir();
    const { sqs, queueUrl } = await start(dataDir);
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'backoff' }));
    const { Messages } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl }));
    await sqs.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: queueUrl,
        ReceiptHandle: Messages![0]!.ReceiptHandle,
        VisibilityTimeout: 300,
      }),
    );
    const after = await start(crashCopy(dataDir), { releaseInFlightOnStart: true });
    expect(await counts(after.sqs, after.queueUrl)).toEqual({ visible: 0, inFlight: 1 });
  });

  it('ignores a torn last journal line (a crash mid-write, never acknowledged)', async () => {
    const dataDir = temporaryDir();
    const { sqs, queueUrl } = await start(dataDir);
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'whole' }));
    const copy = crashCopy(dataDir);
    appendFileSync(join(copy, 'sqs.log'), '{"t":"put","q":"work","m":{"id":"x","bo');
    const after = await start(copy);
    expect(await counts(after.sqs, after.queueUrl)).toEqual({ visible: 1, inFlight: 0 });
  });

  it('folds the journal into the snapshot as it grows, losing nothing', async () => {
    const dataDir = temporaryDir();
    const { sqs, queueUrl } = await start(dataDir, { compactBytes: 2048 });
    for (let batch = 0; batch < 10; batch++) {
      await sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: Array.from({ length: 10 }, (_, n) => ({ Id: `m${n}`, MessageBody: `${batch}-${n}` })),
        }),
      );
    }
    // Compaction happened: the journal holds far less than 100 messages' worth of records.
    expect(readFileSync(join(dataDir, 'sqs.log'), 'utf8').length).toBeLessThan(4096);
    const after = await start(crashCopy(dataDir));
    expect(await counts(after.sqs, after.queueUrl)).toEqual({ visible: 100, inFlight: 0 });
  });
});
