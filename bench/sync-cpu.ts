// `npx tsx bench/sync-cpu.ts [--requests 3000] [--concurrency 10]`: where the local runtime's CPU per
// sync request goes, in one process (LOCAL_WORKERS=0, LOCAL_FSYNC as set): CPU ms per request of
//   1. the validateEmail handler invoked directly (middy chain, auth, rate limit, engine, the two
//      DynamoDB calls through the SDK),
//   2. the same request through the local API (HTTP parsing, the API Gateway event, the response),
//      from a client in this process (its CPU is in the figure: compare it with 3),
//   3. a bare node:http server answering the same body to the same client,
//   4. the sync path's two DynamoDB calls alone (the rate counter's UpdateItem and a two-item
//      TransactWriteItems) through the process's SDK client.
// The JVM's CPU is not in any of them. Not a test: it prints numbers, with the load beside them.
import { rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoDb, tableName } from '../functions/clients/dynamodb';
import { demoKeys } from '../local/demo/accounts';
import { apiEvent } from '../local/events';
import { startSyncBenchRuntime } from './sync-runtime';
import { numberFlag } from './flags';

const requests = numberFlag('requests', 3000, true);
const concurrency = numberFlag('concurrency', 10, true);
const emails = ['alice@example-corp.test', 'info@acme.test', 'abuse@example-corp.test', 'jane@outllook.com'];

/** CPU ms of this process per unit of `work`, `requests` units from `concurrency` callers. */
async function cpuPer(name: string, work: (n: number) => Promise<unknown>): Promise<void> {
  // warm-up: the code paths, the sockets, the caches
  for (let n = 0; n < 200; n++) await work(n);
  let next = 0;
  const wall = performance.now();
  const cpu = process.cpuUsage();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < requests) await work(next++);
    }),
  );
  const used = process.cpuUsage(cpu);
  const ms = (used.user + used.system) / 1000;
  const seconds = (performance.now() - wall) / 1000;
  console.log(
    `${name.padEnd(58)} ${(ms / requests).toFixed(3)} ms CPU a request, ${(requests / seconds).toFixed(0)}/s (load ${os.loadavg()[0]!.toFixed(1)})`,
  );
}

/** POSTs `body` over a kept-alive connection of `agent`; resolves with the status. */
function post(agent: http.Agent, url: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: { 'x-api-key': demoKeys.admin, 'content-type': 'application/json' },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

async function main(): Promise<void> {
  const { runtime, dns, dataDir } = await startSyncBenchRuntime('sync-cpu', { workers: 0 });
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  try {
    const bodyOf = (n: number) =>
      JSON.stringify({ email: emails[n % emails.length], metadata: { bench: n } });
    console.log(`${requests} requests from ${concurrency} callers per line`);
    await cpuPer('1. validateEmail handler, invoked directly', async (n) => {
      const event = apiEvent({
        method: 'POST',
        path: '/v1/email/validate',
        headers: { 'x-api-key': demoKeys.admin, 'content-type': 'application/json' },
        body: bodyOf(n),
      });
      const result = (await runtime.invoke('validateEmail', event)) as { statusCode: number };
      if (result.statusCode !== 200) throw new Error(`validateEmail answered ${result.statusCode}`);
    });
    const url = `${runtime.baseUrl}/v1/email/validate`;
    await cpuPer('2. the same through the local API (with its client)', async (n) => {
      const status = await post(agent, url, bodyOf(n));
      if (status !== 200) throw new Error(`the local API answered ${status}`);
    });
    const bare = http.createServer((request, response) => {
      request.resume();
      request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    });
    await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
    try {
      const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/`;
      await cpuPer('3. a bare node:http server (with the same client)', (n) =>
        post(agent, bareUrl, bodyOf(n)),
      );
    } finally {
      bare.closeAllConnections();
      await new Promise((resolve) => bare.close(resolve));
    }
    const doc = dynamoDb();
    const TableName = tableName();
    await cpuPer('4. the two DynamoDB calls alone (SDK client)', async (n) => {
      await doc.send(
        new UpdateCommand({
          TableName,
          Key: { pk: 'BENCH#rate', sk: `SECOND#${Math.floor(n / 100)}` },
          UpdateExpression: 'ADD #n :one',
          ConditionExpression: 'attribute_not_exists(#n) OR #n < :limit',
          ExpressionAttributeNames: { '#n': 'n' },
          ExpressionAttributeValues: { ':one': 1, ':limit': 1_000_000 },
        }),
      );
      await doc.send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName, Item: { pk: 'BENCH#requests', sk: `REQUEST#${n}`, status: 'completed' } } },
            {
              Update: {
                TableName,
                Key: { pk: 'BENCH#usage', sk: 'MONTH' },
                UpdateExpression: 'ADD #used :one',
                ExpressionAttributeNames: { '#used': 'used' },
                ExpressionAttributeValues: { ':one': 1 },
              },
            },
          ],
        }),
      );
    });
  } finally {
    agent.destroy();
    await runtime.stop();
    await dns.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
