// The bulk pipeline at a reduced size, for comparing duplicate handling across revisions: a generated
// CSV (`--rows N`, default 200,000; every fifth address repeats an earlier one) through the local runtime
// with DNS served on 127.0.0.1, PUT to completed to downloaded, `--runs` times (default 2). It imports
// only the public client and the test runtime, so the same file runs against an older functions/.
import { createHash } from 'node:crypto';
import { createMailvetClient } from '../client';
import { demoIds } from '../local/demo/accounts';
import { addCredits } from '../functions/domain/usage';
import { startTestRuntime } from '../test/helpers/local-runtime';
import { startFixtureDns, type Zones } from '../test/unit/validation/fixtures/dns-server';

const arg = (name: string, fallback: number) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const ROWS = arg('--rows', 200_000);
const RUNS = arg('--runs', 2);
const DOMAINS = 2_000;

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

function generateCsv(): Buffer {
  let seed = 42;
  const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const lines = ['id,name,email,company,note\n'];
  for (let i = 0; i < ROWS; i++) {
    const n = i % 5 === 4 ? Math.floor(rnd() * i) : i;
    lines.push(`${i},Ann,ann.${n}@d${n % DOMAINS}.test,"Company ${i % 1000}, Inc.",note ${i % 997}\n`);
  }
  return Buffer.from(lines.join(''));
}

function dnsZones(): Zones {
  const zones: Zones = { 'mx.bench.test': { a: ['127.0.0.1'] } };
  for (let d = 0; d < DOMAINS; d++)
    zones[`d${d}.test`] = { mx: [{ exchange: 'mx.bench.test', priority: 10 }] };
  return zones;
}

async function main(): Promise<void> {
  const file = generateCsv();
  const dns = await startFixtureDns(dnsZones());
  const runtime = await startTestRuntime({
    DNS_SERVERS: dns.servers.join(','),
    ALLOW_PRIVATE_MX: 'true',
    LOG_LEVEL: 'warn',
  });
  await addCredits(demoIds.acme, ROWS * RUNS);
  const client = createMailvetClient({ baseUrl: runtime.baseUrl, apiKey: runtime.keys.admin });
  try {
    for (let run = 1; run <= RUNS; run++) {
      let t0 = 0;
      const end = await client.runFileJob({ emailColumn: 2, pollIntervalMs: 100 }, (uploadUrl) => {
        t0 = performance.now();
        return client.uploadFile(uploadUrl, file);
      });
      if (!end.download) throw new Error(`job ${end.job.status}: ${end.job.error}`);
      const download = await client.fetchResults(end.download.downloadUrl);
      const results = Buffer.from(await download.arrayBuffer());
      const seconds = (performance.now() - t0) / 1000;
      const duplicates = (end.job as { duplicateEmails?: number }).duplicateEmails ?? 'not reported';
      console.log(
        `run ${run}: ${(file.length / 1048576).toFixed(1)} MB, ${ROWS} rows, ${seconds.toFixed(2)} s end to end, duplicateEmails ${duplicates}`,
      );
      // after the figure: the results and a unique copy with reasons, whose bytes no revision may change
      const unique = await client.getDownload(end.jobId, { unique: true, columns: ['status', 'reason'] });
      const copy = Buffer.from(await (await client.fetchResults(unique.downloadUrl)).arrayBuffer());
      console.log(`  results sha256 ${sha256(results)}, unique+reason copy sha256 ${sha256(copy)}`);
    }
  } finally {
    await runtime.stop();
    await dns.close();
  }
}

void main();
