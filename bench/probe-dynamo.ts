// What the probe stage's DynamoDB calls cost on DynamoDB Local (the local runtime's store): per call
// kind, sequential latency and throughput at a given concurrency. Used to find what bounds
// `npm run bench:probe` on one machine.
//
//   npm run bench:probe-dynamo [-- --concurrency 50 --calls 400]
import {
  BatchGetCommand,
  BatchWriteCommand,
  GetCommand,
  PutCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { dynamoDb, tableName } from '../functions/clients/dynamodb';
import { DynamoPoliteness } from '../functions/store/mx-politeness';
import { ProbeVerdictItems } from '../functions/store/probe-verdicts';
import { startTestRuntime } from '../test/helpers/local-runtime';
import { numberFlag } from './flags';

const CONCURRENCY = numberFlag('concurrency', 50);
const CALLS = numberFlag('calls', 400);

async function measure(name: string, items: number, call: (n: number) => Promise<unknown>) {
  const seqCalls = Math.min(50, CALLS);
  let t = performance.now();
  for (let n = 0; n < seqCalls; n++) await call(n);
  const seqMs = (performance.now() - t) / seqCalls;
  t = performance.now();
  let next = seqCalls;
  const end = seqCalls + CALLS;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < end) await call(next++);
    }),
  );
  const s = (performance.now() - t) / 1000;
  console.log(
    `${name}: ${seqMs.toFixed(1)} ms/call sequential; ${(CALLS / s).toFixed(0)} calls/s, ${((CALLS * items) / s).toFixed(0)} items/s at concurrency ${CONCURRENCY}`,
  );
}

async function main() {
  const runtime = await startTestRuntime();
  try {
    for (const [k, v] of Object.entries(runtime.runtime.env)) process.env[k] = v;
    const doc = dynamoDb();
    const TableName = tableName();
    await measure('GetItem (consistent)', 1, (n) =>
      doc.send(new GetCommand({ TableName, Key: { pk: `B#${n % 50}`, sk: 'X' }, ConsistentRead: true })),
    );
    await measure('PutItem', 1, (n) =>
      doc.send(new PutCommand({ TableName, Item: { pk: `P#${n}`, sk: 'X', v: n } })),
    );
    // the probe stage's own calls, through its storage modules
    const politeness = new DynamoPoliteness(doc, TableName, {
      maxSessionsPerHost: 2,
      rcptPerSecondPerHost: 20,
      leaseMs: 60_000,
    });
    await measure('RCPT booking (conditional UpdateItem, 50 hosts)', 1, (n) =>
      politeness.bookRcpt(`mx${n % 50}.bench.test`, 1),
    );
    const verdicts = new ProbeVerdictItems(doc, TableName);
    const expiry = Math.floor(Date.now() / 1000) + 86400;
    await measure('verdict cache put, 100 addresses of one domain (8 shard updates)', 100, (n) =>
      verdicts.put(
        Array.from({ length: 100 }, (_, i) => [`u${i}@d${n}.bench.test`, 'accepted'] as [string, string]),
        expiry,
      ),
    );
    await measure('BatchWriteItem (25 puts)', 25, (n) =>
      doc.send(
        new BatchWriteCommand({
          RequestItems: {
            [TableName]: Array.from({ length: 25 }, (_, i) => ({
              PutRequest: { Item: { pk: `V#${n}#${i}`, sk: 'V', probe: 'accepted', email: `a${i}` } },
            })),
          },
        }),
      ),
    );
    await measure('BatchGetItem (100 keys, missing items)', 100, (n) =>
      doc.send(
        new BatchGetCommand({
          RequestItems: {
            [TableName]: { Keys: Array.from({ length: 100 }, (_, i) => ({ pk: `M#${n}#${i}`, sk: 'V' })) },
          },
        }),
      ),
    );
    // the same 25 puts in one transaction: does DynamoDB Local pay per item or per request?
    await measure('TransactWriteItems (25 puts)', 25, (n) =>
      doc.send(
        new TransactWriteCommand({
          TransactItems: Array.from({ length: 25 }, (_, i) => ({
            Put: { TableName, Item: { pk: `T#${n}#${i}`, sk: 'V', probe: 'accepted', email: `a${i}` } },
          })),
        }),
      ),
    );
  } finally {
    await runtime.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
