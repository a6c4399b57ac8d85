// `npx tsx bench/sync-jvm.ts [--pairs 3000] [--callers 10] [--rounds 2]`: DynamoDB Local alone, started
// as local/dynamodb.ts starts it (on a data directory on the disk of .bench/, LOCAL_FSYNC as set), with
// mailvet's table (its two GSIs), driven with a warm sync request's two writes as the runtime sends
// them: the rate counter's conditional UpdateItem, then the completing two-item TransactWriteItems
// (the completed request with its outcome as JSON text, or with --outcome-maps as nested maps as it
// was stored before; the month's usage). Prints the JVM's start-up (wall time
// and CPU to the first answer) and, per round of `pairs` pairs from `callers` callers, pairs a second
// and the JVM's CPU per pair. Not a test: it prints numbers, with the load beside them.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import {
  TransactWriteItemsCommand,
  UpdateItemCommand,
  type AttributeValue,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { ensureTable, localDynamoDbClient, startDynamoDbLocal } from '../local/dynamodb';
import { localFsync } from '../local/fsync';
import { numberFlag } from './flags';
import { safeResult } from '../test/fixtures/validation-results';

const pairs = numberFlag('pairs', 3000, true);
const callers = numberFlag('callers', 10, true);
const rounds = numberFlag('rounds', 2, true);
/** --outcome-maps: the outcome as nested maps, as requests were stored before outcomeJson. */
const outcomeAsMaps = process.argv.includes('--outcome-maps');
const table = 'mailvet';
const company = '0a0c3e00-0000-4000-8000-000000000001';

/** The process's resident memory (MB), from /proc (Linux). */
function residentMb(pid: number): number {
  const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Math.round(Number(kb) / 1024);
}

/** CPU time (ms) a process has used so far, from /proc (Linux). */
function processCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

const S = (value: string) => ({ S: value });
const N = (value: number) => ({ N: String(value) });

/** A JSON value as a DynamoDB attribute (what the SDK's marshalling made of the outcome). */
function attribute(value: unknown): AttributeValue {
  if (value === null) return { NULL: true };
  if (typeof value === 'string') return S(value);
  if (typeof value === 'number') return N(value);
  if (typeof value === 'boolean') return { BOOL: value };
  if (Array.isArray(value)) return { L: value.map(attribute) };
  return {
    M: Object.fromEntries(Object.entries(value as object).map(([key, inner]) => [key, attribute(inner)])),
  };
}

/** A warm request's completed item, as the runtime writes it (functions/store/validation-requests.ts). */
function completedItem(n: number): Record<string, AttributeValue> {
  const outcome = safeResult(`alice${n}@example-corp.test`, 'example-corp.test', 'mx.loop.test');
  const requestId = randomUUID();
  const now = new Date().toISOString();
  return {
    pk: S(`COMPANY#${company}`),
    sk: S(`VALIDATION#${requestId}`),
    type: S('validation_request'),
    companyId: S(company),
    requestId: S(requestId),
    status: S('completed'),
    createdAt: S(now),
    validatedAt: S(now),
    ...(outcomeAsMaps ? { outcome: attribute(outcome) } : { outcomeJson: S(JSON.stringify(outcome)) }),
    metadataJson: S(JSON.stringify({ bench: n })),
    ttl: N(Math.floor(Date.now() / 1000) + 30 * 86400),
  };
}

async function drive(client: DynamoDBClient): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (next < pairs) {
        const n = next++;
        const second = Math.floor(Date.now() / 1000);
        await client.send(
          new UpdateItemCommand({
            TableName: table,
            Key: { pk: S(`RATE#${company}#${second}`), sk: S('RATE') },
            UpdateExpression: 'ADD #count :one SET #ttl = :ttl',
            ConditionExpression: 'attribute_not_exists(#count) OR #count < :limit',
            ExpressionAttributeNames: { '#count': 'count', '#ttl': 'ttl' },
            ExpressionAttributeValues: { ':one': N(1), ':limit': N(1_000_000), ':ttl': N(second + 120) },
          }),
        );
        await client.send(
          new TransactWriteItemsCommand({
            TransactItems: [
              {
                Put: {
                  TableName: table,
                  Item: completedItem(n),
                  ConditionExpression: 'attribute_not_exists(pk)',
                },
              },
              {
                Update: {
                  TableName: table,
                  Key: { pk: S(`COMPANY#${company}`), sk: S('USAGE#2026-11') },
                  UpdateExpression:
                    'SET #type = :type ADD #validations :validations, #single :single, #committed :committed',
                  ConditionExpression: 'attribute_not_exists(#committed) OR #committed <= :max',
                  ExpressionAttributeNames: {
                    '#type': 'type',
                    '#validations': 'validations',
                    '#single': 'single',
                    '#committed': 'committed',
                  },
                  ExpressionAttributeValues: {
                    ':type': S('usage'),
                    ':validations': N(1),
                    ':single': N(1),
                    ':committed': N(1),
                    ':max': N(1_000_000_000),
                  },
                },
              },
            ],
          }),
        );
      }
    }),
  );
  return performance.now() - started;
}

async function main(): Promise<void> {
  const benchDir = path.resolve('.bench');
  mkdirSync(benchDir, { recursive: true });
  const dataDir = mkdtempSync(path.join(benchDir, 'sync-jvm-'));
  const load = () => os.loadavg()[0]!.toFixed(1);
  const started = performance.now();
  const dynamo = await startDynamoDbLocal({ dataDir, fsync: localFsync(), supervise: false });
  const pid = dynamo.process.pid!;
  const readyMs = performance.now() - started;
  const readyCpu = processCpuMs(pid);
  await ensureTable(dynamo.endpoint, table);
  console.log(
    `start-up: first answer after ${Math.round(readyMs)} ms, ${Math.round(readyCpu)} ms of JVM CPU; ` +
      `with the table ${Math.round(processCpuMs(pid))} ms (load ${load()})`,
  );
  const client = localDynamoDbClient(dynamo.endpoint);
  try {
    for (let round = 1; round <= rounds; round++) {
      const cpuBefore = processCpuMs(pid);
      const ms = await drive(client);
      const cpu = processCpuMs(pid) - cpuBefore;
      console.log(
        `round ${round}: ${pairs} pairs from ${callers} callers, ${Math.round((pairs / ms) * 1000)} pairs/s, ` +
          `JVM CPU ${(cpu / pairs).toFixed(2)} ms a pair, RSS ${residentMb(pid)} MB (load ${load()})`,
      );
    }
  } finally {
    client.destroy();
    await dynamo.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
