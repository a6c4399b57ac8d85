// How often the bulk pipeline reads a job's item, counted from the functions' recorded DynamoDB calls
// on the local runtime: a chunk message reads it at most once plus the completion's check, and so does
// a probe message (its batch's own item comes in the same request). Every read of a busy job is paid
// per chunk and per probe batch, and the probe stage's batches all read the same item.
import type { AwsCall } from '../../functions/clients/call-recording';
import { fixtureProbeSettings, startTestRuntime, type TestRuntime } from '../helpers/local-runtime';
import { startFixtureDns, type FixtureDns } from '../unit/validation/fixtures/dns-server';
import { mailboxRule, startBatchSmtp, type BatchSmtp } from '../unit/validation/fixtures/batch-smtp';
import { BulkClient } from './bulk-client';

jest.setTimeout(240_000);

let dns: FixtureDns;
let smtp: BatchSmtp;
let runtime: TestRuntime;

beforeAll(async () => {
  dns = await startFixtureDns({
    'mbx.test': { mx: [{ exchange: 'mx.mbx.test', priority: 10 }] },
    'mx.mbx.test': { a: ['127.0.0.1'] },
  });
  smtp = await startBatchSmtp({ rcpt: mailboxRule() });
  runtime = await startTestRuntime({
    ...fixtureProbeSettings(dns, smtp),
    PROBE_BATCH_SIZE: '2',
    PROBE_GREYLIST_RETRIES: '1',
    PROBE_GREYLIST_DELAY_SECONDS: '1',
    CHUNK_SIZE_BYTES: '150',
  });
});

afterAll(async () => {
  await runtime?.stop();
  await smtp?.close();
  await dns?.close();
});

const readOperations = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan']);

/** The calls that read the job's item: a get naming its key, or a query on its sort key. */
const readsJobItem = (companyId: string, jobId: string) => (call: AwsCall) =>
  call.service === 'dynamodb' &&
  readOperations.has(call.operation) &&
  (call.target.items ?? []).some(
    (item) => item === `COMPANY#${companyId} JOB#${jobId}` || item === `JOB#${jobId}`,
  );

/** Reads of the job's item per invocation of `fn`. */
function readsPerInvocation(calls: AwsCall[], fn: string, reads: (call: AwsCall) => boolean): number[] {
  const per = new Map<number, number>();
  for (const call of calls)
    if (call.function === fn && call.invocation !== undefined)
      per.set(call.invocation, (per.get(call.invocation) ?? 0) + (reads(call) ? 1 : 0));
  return [...per.values()];
}

it('reads the job item at most once per chunk and per probe message, plus the completion check', async () => {
  const rows = ['email'];
  // rows a probe decides (one MX host, batches of two, one greylisted round) and rows it does not
  for (let n = 0; n < 8; n++)
    rows.push(`person${n}@mbx.test`, `unknown${n}@mbx.test`, `safe+t${n}@mailvet.test`);
  rows.push('grey1@mbx.test');
  const client = new BulkClient(runtime.baseUrl, runtime.keys.admin);
  const before = runtime.runtime.awsCalls.length;
  const result = await client.run(Buffer.from(`${rows.join('\n')}\n`), { emailColumn: 0 });
  expect(result.final.status).toBe('completed');
  const calls = runtime.runtime.awsCalls.slice(before);
  const reads = readsJobItem(runtime.ids.acme, result.jobId);

  const chunkReads = readsPerInvocation(calls, 'validateChunk', reads);
  // several chunks, each handed to the probe stage and then sent again to write its part
  expect(chunkReads.length).toBeGreaterThanOrEqual(6);
  expect(Math.max(...chunkReads)).toBeLessThanOrEqual(2);
  // only the run that completes the job may read twice
  expect(chunkReads.filter((n) => n === 2).length).toBeLessThanOrEqual(1);

  const probeMessages = calls
    .filter((c) => c.service === 'sqs' && /probes$/.test(c.target.queueUrl ?? ''))
    .reduce((n, c) => n + (c.target.entries ?? 1), 0);
  const probeReads = readsPerInvocation(calls, 'probeMailboxes', reads).reduce((a, b) => a + b, 0);
  expect(probeMessages).toBeGreaterThanOrEqual(10);
  // one read per message, and the completion check of the settles that may finish their chunk
  expect(probeReads).toBeLessThanOrEqual(2 * probeMessages);
  const settles = calls.filter(
    (c) => c.function === 'probeMailboxes' && c.operation === 'TransactWriteItems',
  ).length;
  expect(probeReads).toBeLessThanOrEqual(probeMessages + settles);
  process.stdout.write(
    `job item reads: chunk messages ${JSON.stringify(chunkReads)}; ${probeReads} for ${probeMessages} probe messages (${settles} transactions)\n`,
  );
});
