// The cost of the local runtime's fsync policy: the local SQS (journal) and the local S3 (objects and
// durable events) with LOCAL_FSYNC on and off, in the same run, on the disk of BENCH_DIR (default .bench/
// in the working directory, the disk DATA_DIR lives on, not a tmpfs). Prints one line per measurement.
import '../functions/clients/sdk-notice';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { startLocalS3 } from '../local/s3/local-s3';
import { startSqsServer } from '../local/sqs/server';
import { localS3Client } from '../test/helpers/local-s3-client';

const credentials = { accessKeyId: 'bench', secretAccessKey: 'bench' };
const benchRoot = path.resolve(process.env.BENCH_DIR ?? '.bench');
const messages = Number(process.env.BENCH_MESSAGES ?? 2000);
const objects = Number(process.env.BENCH_OBJECTS ?? 300);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
}

function report(name: string, count: number, elapsedMs: number, latencies: number[]): void {
  const sorted = [...latencies].sort((a, b) => a - b);
  process.stdout.write(
    `${name.padEnd(44)} ${(count / (elapsedMs / 1000)).toFixed(0).padStart(6)}/s  ` +
      `p50 ${percentile(sorted, 50).toFixed(2)} ms  p99 ${percentile(sorted, 99).toFixed(2)} ms\n`,
  );
}

/** Runs `count` operations, `concurrency` at a time; returns elapsed ms and each operation's latency. */
async function run(count: number, concurrency: number, operation: (n: number) => Promise<unknown>) {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const n = next++;
        const t = performance.now();
        await operation(n);
        latencies.push(performance.now() - t);
      }
    }),
  );
  return { elapsedMs: performance.now() - started, latencies };
}

async function benchSqs(fsync: boolean): Promise<void> {
  const dir = mkdtempSync(path.join(benchRoot, '.bench-sqs-'));
  const server = await startSqsServer({ port: 0, dataDir: dir, fsync });
  const sqs = new SQSClient({ endpoint: server.url, region: 'us-east-1', credentials });
  try {
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: 'bench' }));
    const body = JSON.stringify({
      kind: 'chunk',
      jobId: 'j',
      start: 0,
      end: 1_000_000,
      pad: 'x'.repeat(200),
    });
    for (const concurrency of [1, 16]) {
      const label = `sqs SendMessage fsync=${fsync} concurrency=${concurrency}`;
      const sent = await run(messages, concurrency, () =>
        sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: body })),
      );
      report(label, messages, sent.elapsedMs, sent.latencies);
    }
    const cycle = await run(messages / 2, 16, async () => {
      const { Messages } = await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 1 }));
      const handle = Messages?.[0]?.ReceiptHandle;
      if (handle) await sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: handle }));
    });
    report(
      `sqs Receive+Delete fsync=${fsync} concurrency=16`,
      messages / 2,
      cycle.elapsedMs,
      cycle.latencies,
    );
  } finally {
    sqs.destroy();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function benchS3(fsync: boolean): Promise<void> {
  const dir = mkdtempSync(path.join(benchRoot, '.bench-s3-'));
  const local = await startLocalS3({
    dataDir: path.join(dir, 's3'),
    eventsDir: path.join(dir, 'events'),
    fsync,
    port: 0,
    buckets: ['bench'],
    ...credentials,
    onObjectCreated: () => undefined,
  });
  local.deliverPending();
  const s3 = localS3Client(local.url, credentials);
  try {
    const body = Buffer.alloc(64 * 1024, 'a');
    const put = await run(objects, 8, (n) =>
      s3.send(new PutObjectCommand({ Bucket: 'bench', Key: `uploads/o${n}.csv`, Body: body })),
    );
    report(`s3 PutObject 64 KiB + event fsync=${fsync} conc=8`, objects, put.elapsedMs, put.latencies);
    await local.drain();
  } finally {
    s3.destroy();
    await local.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  mkdirSync(benchRoot, { recursive: true });
  process.stdout.write(`durability benchmark on ${benchRoot} (${messages} messages, ${objects} objects)\n`);
  for (const fsync of [true, false]) await benchSqs(fsync);
  for (const fsync of [true, false]) await benchS3(fsync);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
