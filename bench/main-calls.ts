// The local runtime's main thread per request, for the requests bench:bulk sends besides S3 bodies
// (bench/s3-put.ts has those): the client's job poll through the local API, a chunk message's trip
// through the local SQS server and a poller (send in batches of 10, receive, a handler that does
// nothing, delete) and the DynamoDB calls of a chunk as the functions' client sends them. Everything
// runs in this process (LOCAL_WORKERS=0), so process.cpuUsage is the main thread's work plus V8's
// helper threads; DynamoDB Local's JVM is measured apart from /proc. Best of `--rounds` rounds.
//   npx tsx bench/main-calls.ts [--requests 400] [--rounds 3]
import http from 'node:http';
import os from 'node:os';
import { readdirSync, readFileSync } from 'node:fs';
import { CreateQueueCommand, SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoDb, tableName } from '../functions/clients/dynamodb';
import { demoKeys } from '../local/demo/accounts';
import { startQueuePoller } from '../local/sqs/poller';
import { startSqsServer } from '../local/sqs/server';
import { startSyncBenchRuntime } from './sync-runtime';
import { numberFlag } from './flags';
import { processCpuMs } from './thread-cpu';

const requests = numberFlag('requests', 400, true);
const rounds = numberFlag('rounds', 3, true);

/** The best round's CPU ms per unit (this process; the JVM's beside it when `jvmPid` is known). */
async function cpuPer(name: string, work: (n: number) => Promise<unknown>, jvmPid?: number): Promise<void> {
  for (let n = 0; n < 50; n++) await work(n);
  let best = Infinity;
  let bestJvm = Infinity;
  for (let round = 0; round < rounds; round++) {
    const cpu = process.cpuUsage();
    const jvm = jvmPid ? processCpuMs(jvmPid) : undefined;
    for (let n = 0; n < requests; n++) await work(n);
    const used = process.cpuUsage(cpu);
    best = Math.min(best, (used.user + used.system) / 1000 / requests);
    const jvmAfter = jvmPid ? processCpuMs(jvmPid) : undefined;
    if (jvm !== undefined && jvmAfter !== undefined) bestJvm = Math.min(bestJvm, (jvmAfter - jvm) / requests);
  }
  const jvmText = Number.isFinite(bestJvm) ? `, DynamoDB Local's JVM ${bestJvm.toFixed(3)} ms` : '';
  console.log(
    `${name.padEnd(52)} ${best.toFixed(3)} ms CPU each${jvmText} (load ${os.loadavg()[0]!.toFixed(1)})`,
  );
}

function get(agent: http.Agent, url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent, headers: { 'x-api-key': demoKeys.admin } }, (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      })
      .on('error', reject);
  });
}

/** The runtime's DynamoDB Local (a child of this process), found by its command line. */
function dynamoDbLocalPid(): number | undefined {
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!pid) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (Number(stat.split(') ')[1]!.split(' ')[1]) !== process.pid) continue;
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('DynamoDBLocal')) return pid;
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

async function sqsRound(): Promise<void> {
  const server = await startSqsServer({ fsync: false });
  const client = new SQSClient({
    region: server.region,
    endpoint: server.url,
    credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
  });
  const queueUrl = server.queueUrl('bench-chunks');
  await client.send(new CreateQueueCommand({ QueueName: 'bench-chunks' }));
  let received = 0;
  let wake: (() => void) | undefined;
  const poller = startQueuePoller({
    client,
    queueUrl,
    queueArn: server.queueArn('bench-chunks'),
    batchSize: 1,
    maxConcurrency: 4,
    functionName: 'bench',
    handler: async (event) => {
      received += event.Records.length;
      wake?.();
    },
  });
  const body = JSON.stringify({ kind: 'chunk', index: 0, start: 0, end: 5_242_880, pad: 'x'.repeat(300) });
  try {
    // ten messages a batch, as the scan sends them; each waits for all ten to be handled
    await cpuPer('SQS: a chunk message sent, received, deleted', async (n) => {
      if (n % 10 !== 0) return;
      const target = received + 10;
      await client.send(
        new SendMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: Array.from({ length: 10 }, (_, i) => ({ Id: String(i), MessageBody: body })),
        }),
      );
      while (received < target) await new Promise<void>((resolve) => (wake = resolve));
      await poller.idle();
    });
  } finally {
    await poller.stop();
    client.destroy();
    await server.close();
  }
}

async function main(): Promise<void> {
  await sqsRound();
  const { runtime, dns } = await startSyncBenchRuntime('main-calls', { workers: 0 });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const jvm = dynamoDbLocalPid();
    const created = await fetch(`${runtime.baseUrl}/v1/email/validate-file`, {
      method: 'POST',
      headers: { 'x-api-key': demoKeys.admin, 'content-type': 'application/json' },
      body: JSON.stringify({ fileName: 'bench.csv', emailColumn: 0 }),
    });
    const { jobId } = (await created.json()) as { jobId: string };
    if (!jobId) throw new Error(`no job created (${created.status})`);
    const url = `${runtime.baseUrl}/v1/email/validate-file/${jobId}`;
    await cpuPer(
      'API: GET the job (a client poll, with its client)',
      async () => {
        const status = await get(agent, url);
        if (status !== 200) throw new Error(`the poll answered ${status}`);
      },
      jvm,
    );
    const doc = dynamoDb();
    const TableName = tableName();
    await cpuPer(
      'DynamoDB: a GetItem and a conditional UpdateItem',
      async (n) => {
        await doc.send(
          new GetCommand({ TableName, Key: { pk: 'BENCH#job', sk: 'JOB' }, ConsistentRead: true }),
        );
        await doc.send(
          new UpdateCommand({
            TableName,
            Key: { pk: 'BENCH#job', sk: 'JOB' },
            UpdateExpression: 'ADD #n :one',
            ConditionExpression: 'attribute_not_exists(#n) OR #n < :limit',
            ExpressionAttributeNames: { '#n': 'n' },
            ExpressionAttributeValues: { ':one': 1, ':limit': 1_000_000_000 + n },
          }),
        );
      },
      jvm,
    );
  } finally {
    agent.destroy();
    await runtime.stop();
    await dns.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
