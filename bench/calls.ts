// AWS calls per row, counted by the local runtime's call recorder (functions/clients/call-recording.ts):
// a bulk file without probing (upload, chunks, results, a filtered download), then a small probed job
// against fixture SMTP servers. For each: calls by function and operation, calls per row, and the
// validateChunk / probeMailboxes invocations' spans (first call to last call: a lower bound of their
// duration), which docs/scale.md turns into wall time and cost.
//
//   npm run bench:calls                     150,000 rows (3 chunks), then 2,000 probed addresses
//   tsx bench/calls.ts --rows 20000          the bulk file only, smaller
//   tsx bench/calls.ts --probe --probe-addresses 1000 --probe-domains 20   the probed job only
//
// One kind per process: the validation engine is built once per process (as in a Lambda container),
// with the SMTP_PROBE setting of the first runtime.
//
// Event source mappings' own SQS calls (receive, delete) are Lambda's and are not recorded: the
// report estimates them from the messages sent.
import { createHash } from 'node:crypto';
import type { AwsCall } from '../functions/clients/call-recording';
import { demoIds } from '../local/demo/accounts';
import { addCredits } from '../functions/domain/usage';
import { settings } from '../functions/settings';
import { startTestRuntime, type TestRuntime } from '../test/helpers/local-runtime';
import { startFixtureDns, type Zones } from '../test/unit/validation/fixtures/dns-server';
import { replies, startBatchSmtp, type BatchSmtp } from '../test/unit/validation/fixtures/batch-smtp';
import { closedPort } from '../test/unit/validation/fixtures/harness';
import { numberFlag } from './flags';

const ROWS = numberFlag('rows', 150_000);
const DOMAINS = 2_000;
const PROBE_ADDRESSES = numberFlag('probe-addresses', 2_000);
const PROBE_DOMAINS = numberFlag('probe-domains', 50);

/** Rows shaped like bench/bulk.ts's 100 MB file (~95 bytes each, skewed domains, 3% invalid). */
function bulkCsv(rows: number): Buffer {
  let seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const lines = ['id,name,email,company,note'];
  for (let i = 0; i < rows; i++) {
    const domain = `d${Math.floor(DOMAINS * rnd() ** 3)}.test`;
    const r = rnd();
    const email = r < 0.01 ? `user.${i}${domain}` : r < 0.03 ? '' : `user.${i}@${domain}`;
    lines.push(`${i},Name ${i % 10},${email},"Company ${i % 1000}, Inc.",note ${i % 997}`);
  }
  return Buffer.from(`${lines.join('\n')}\n`);
}

function bulkZones(): Zones {
  const zones: Zones = { 'mx.bench.test': { a: ['127.0.0.1'] } };
  for (let n = 0; n < DOMAINS; n++)
    if (n % 10 !== 9) zones[`d${n}.test`] = { mx: [{ exchange: 'mx.bench.test', priority: 10 }] };
  return zones;
}

interface Job {
  status: string;
  error?: string;
}

async function runJob(
  runtime: TestRuntime,
  file: Buffer,
  emailColumn: number,
): Promise<{ jobId: string; seconds: number }> {
  const headers = { 'x-api-key': runtime.keys.admin, 'content-type': 'application/json' };
  const created = (await (
    await fetch(`${runtime.baseUrl}/v1/email/validate-file`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ emailColumn }),
    })
  ).json()) as { jobId: string; uploadUrl: string };
  const t0 = performance.now();
  const put = await fetch(created.uploadUrl, {
    method: 'PUT',
    headers: { 'content-type': 'text/csv' },
    body: file,
  });
  if (put.status !== 200) throw new Error(`PUT ${put.status}`);
  for (;;) {
    const res = await fetch(`${runtime.baseUrl}/v1/email/validate-file/${created.jobId}`, { headers });
    if (res.status === 200) {
      const job = (await res.json()) as Job;
      if (job.status === 'completed') break;
      if (job.status !== 'processing' && job.status !== 'awaiting_upload')
        throw new Error(`job ended ${job.status}: ${job.error}`);
    } else await res.body?.cancel();
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const seconds = (performance.now() - t0) / 1000;
  // The downloads a customer makes: the whole file, and a filtered copy (made once, found the second time).
  for (const query of ['', '?status=safe', '?status=safe']) {
    const res = await fetch(`${runtime.baseUrl}/v1/email/validate-file/${created.jobId}/download${query}`, {
      headers,
    });
    if (res.status !== 200) throw new Error(`download${query} answered ${res.status}`);
    await res.body?.cancel();
  }
  return { jobId: created.jobId, seconds };
}

/** Requests as the services bill them: batch calls are one request (DynamoDB bills their items). */
function report(label: string, calls: AwsCall[], rows: number): void {
  const byKey = new Map<string, { n: number; entries: number }>();
  for (const c of calls) {
    const key = `${c.function ?? '(runtime)'} ${c.service}:${c.operation}${c.presigned ? ' (presign)' : ''}`;
    const entry = byKey.get(key) ?? { n: 0, entries: 0 };
    entry.n++;
    entry.entries += c.target.entries ?? 1;
    byKey.set(key, entry);
  }
  const billable = calls.filter((c) => c.function !== undefined && !c.presigned);
  console.log(`\n${label}: ${rows} rows, ${billable.length} AWS calls by functions`);
  console.log('  function service:operation  calls  items/messages  calls per 1,000 rows');
  for (const [key, { n, entries }] of [...byKey].sort((a, b) => b[1].n - a[1].n))
    console.log(`  ${key}  ${n}  ${entries}  ${((n / rows) * 1000).toFixed(2)}`);
  const per = (service: string, filter: (c: AwsCall) => boolean = () => true) =>
    billable.filter((c) => c.service === service && filter(c));
  const dynamoItems = per('dynamodb').reduce((n, c) => n + (c.target.entries ?? 1), 0);
  const dynamoWrites = per('dynamodb', (c) => !/^(Get|BatchGet|Query|Scan)/.test(c.operation));
  const writeItems = dynamoWrites.reduce((n, c) => n + (c.target.entries ?? 1), 0);
  const s3Class1 = per('s3', (c) => /^(Put|Create|Complete|Upload|List|Copy)/.test(c.operation)).length;
  const s3Class2 = per('s3', (c) => /^(Get|Head)/.test(c.operation)).length;
  const sqsSent = per('sqs', (c) => c.operation.startsWith('SendMessage'));
  const messages = sqsSent.reduce((n, c) => n + (c.target.entries ?? 1), 0);
  console.log(
    `  per 1,000 rows: DynamoDB ${((per('dynamodb').length / rows) * 1000).toFixed(2)} requests ` +
      `(${((dynamoItems / rows) * 1000).toFixed(2)} items, of which ${((writeItems / rows) * 1000).toFixed(2)} written), ` +
      `S3 ${((s3Class1 / rows) * 1000).toFixed(3)} PUT/LIST-class + ${((s3Class2 / rows) * 1000).toFixed(3)} GET-class, ` +
      `SQS ${((sqsSent.length / rows) * 1000).toFixed(3)} sends (${messages} messages; an event source ` +
      'adds about one receive and one delete request per batch it takes)',
  );
  const probeCalls = billable.filter((c) => c.function === 'probeMailboxes' && c.service === 'dynamodb');
  if (probeCalls.length > 0) {
    console.log('  probeMailboxes DynamoDB requests by item kind  calls  per 1,000 rows');
    const byKind = new Map<string, number>();
    for (const c of probeCalls) {
      const key = `${c.operation} ${itemKinds(c)}`;
      byKind.set(key, (byKind.get(key) ?? 0) + 1);
    }
    for (const [key, n] of [...byKind].sort((a, b) => b[1] - a[1]))
      console.log(`    ${key}  ${n}  ${((n / rows) * 1000).toFixed(2)}`);
  }
  for (const fn of ['validateChunk', 'probeMailboxes', 'startProcessing']) {
    const spans = new Map<number, { first: number; last: number; calls: number }>();
    for (const c of calls.filter((x) => x.function === fn && x.invocation !== undefined)) {
      const s = spans.get(c.invocation!) ?? { first: c.at, last: c.at + c.ms, calls: 0 };
      s.first = Math.min(s.first, c.at);
      s.last = Math.max(s.last, c.at + c.ms);
      s.calls++;
      spans.set(c.invocation!, s);
    }
    if (spans.size === 0) continue;
    const ms = [...spans.values()].map((s) => s.last - s.first).sort((a, b) => a - b);
    const total = ms.reduce((a, b) => a + b, 0);
    console.log(
      `  ${fn}: ${spans.size} invocations, span first-to-last call median ${ms[Math.floor(ms.length / 2)]!.toFixed(0)} ms, ` +
        `max ${ms[ms.length - 1]!.toFixed(0)} ms, sum ${(total / 1000).toFixed(1)} s`,
    );
  }
}

/** The kinds of item a DynamoDB call names, from their keys: `PROBE# VERDICTS`, `COMPANY# JOB#+...`. */
function itemKinds(call: AwsCall): string {
  const prefix = (value = '') => /^[A-Z]+#?/.exec(value)?.[0] ?? value;
  const kinds = new Set(
    (call.target.items ?? []).map((item) => {
      const [pk, sk] = item.split(' ');
      return `${prefix(pk)} ${prefix(sk)}`;
    }),
  );
  return [...kinds].sort().join(' + ');
}

async function bulk(): Promise<void> {
  const file = bulkCsv(ROWS);
  const dns = await startFixtureDns(bulkZones());
  const runtime = await startTestRuntime({
    DNS_SERVERS: dns.servers.join(','),
    ALLOW_PRIVATE_MX: 'true',
    LOG_LEVEL: 'warn',
  });
  console.log(
    `bulk: ${ROWS} rows, ${(file.length / 1048576).toFixed(2)} MB (${(file.length / ROWS).toFixed(0)} bytes a row), ` +
      `CHUNK_SIZE_BYTES ${settings().CHUNK_SIZE_BYTES}`,
  );
  try {
    await addCredits(demoIds.acme, ROWS);
    const from = runtime.runtime.awsCalls.length;
    const run = await runJob(runtime, file, 2);
    console.log(`bulk: PUT -> completed in ${run.seconds.toFixed(1)} s`);
    report('bulk file', runtime.runtime.awsCalls.slice(from), ROWS);
  } finally {
    await runtime.stop();
    await dns.close();
  }
}

const hostAddress = (n: number) => `127.0.${1 + Math.floor(n / 250)}.${1 + (n % 250)}`;
const bucketOf = (address: string) => createHash('sha1').update(address).digest().readUInt16BE(0) % 100;

async function probed(): Promise<void> {
  const zones: Zones = {};
  for (let n = 0; n < PROBE_DOMAINS; n++) {
    zones[`p${n}.bench.test`] = { mx: [{ exchange: `mx${n}.bench.test`, priority: 10 }] };
    zones[`mx${n}.bench.test`] = { a: [hostAddress(n)] };
  }
  const dns = await startFixtureDns(zones);
  const port = await closedPort();
  const servers: BatchSmtp[] = [];
  for (let n = 0; n < PROBE_DOMAINS; n++)
    servers.push(
      await startBatchSmtp({
        host: hostAddress(n),
        port,
        delayMs: 20,
        rcpt: (address, ctx) => {
          if (address.startsWith('mailvet-probe-')) return replies.unknown;
          const b = bucketOf(address);
          if (b < 10) return replies.unknown;
          if (b < 15 && ctx.seenBefore === 0) return replies.greylisted;
          return replies.ok;
        },
      }),
    );
  const lines = ['email'];
  for (let i = 0; i < PROBE_ADDRESSES; i++) lines.push(`user${i}@p${i % PROBE_DOMAINS}.bench.test`);
  console.log(`\nprobed: ${PROBE_ADDRESSES} addresses over ${PROBE_DOMAINS} domains (one fixture MX each)`);
  const runtime = await startTestRuntime({
    DNS_SERVERS: dns.servers.join(','),
    DNS_TIMEOUT_MS: '2000',
    ALLOW_PRIVATE_MX: 'true',
    LOG_LEVEL: 'warn',
    SMTP_PROBE: 'true',
    SMTP_PORT: String(port),
    SMTP_TIMEOUT_MS: '5000',
    PROBE_GREYLIST_DELAY_SECONDS: '1',
    RATE_LIMIT_PER_SECOND: '1000',
  });
  try {
    await addCredits(demoIds.acme, PROBE_ADDRESSES);
    const from = runtime.runtime.awsCalls.length;
    const run = await runJob(runtime, Buffer.from(`${lines.join('\n')}\n`), 0);
    console.log(`probed: PUT -> completed in ${run.seconds.toFixed(1)} s`);
    report('probed job', runtime.runtime.awsCalls.slice(from), PROBE_ADDRESSES);
  } finally {
    await runtime.stop();
    await Promise.all(servers.map((s) => s.close()));
    await dns.close();
  }
}

async function main(): Promise<void> {
  if (process.argv.includes('--probe')) await probed();
  else await bulk();
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
