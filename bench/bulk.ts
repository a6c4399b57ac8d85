// Bulk pipeline benchmark: a generated 100 MB CSV through the local runtime (PUT -> completed ->
// downloaded, DNS served on 127.0.0.1) against a naive single-process baseline (papaparse stream +
// Papa.unparse + the same engine) in the same run. The last line reads `ratio=<pipeline / baseline>`.
import { createReadStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Papa from 'papaparse';
import { createMailvetClient } from '../client';
import { demoIds } from '../functions/domain/accounts/demo-accounts';
import { addCredits } from '../functions/domain/usage';
import { ValidationEngine, engineOptionsFromSettings } from '../functions/domain/validation';
import { settings } from '../functions/settings';
import { localWorkers } from '../local/runtime';
import { startTestRuntime } from '../test/helpers/local-runtime';
import { startFixtureDns, type Zones } from '../test/unit/validation/fixtures/dns-server';

const TARGET_BYTES = 100 * 1024 * 1024 - 64 * 1024;
const DOMAINS = 2_000;

/** ~1.1M rows: quoted fields, some newlines inside quotes, skewed domains, 3% invalid addresses. */
function generateCsv(): Buffer {
  let seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const names = ['Ann', 'Bob', 'Chloé', 'Dmitri', 'Eve', 'François', 'Günther', 'Hana', 'Ines', 'José'];
  const parts: string[] = ['id,name,email,company,note\n'];
  let bytes = parts[0]!.length;
  for (let i = 0; bytes < TARGET_BYTES; i++) {
    // Zipf-like skew: a few domains hold most addresses.
    const domain = `d${Math.floor(DOMAINS * rnd() ** 3)}.test`;
    const local = `${names[i % 10]!.toLowerCase()
      .normalize('NFD')
      .replace(/[^a-z]/g, '')}.${i}`;
    const r = rnd();
    const email =
      r < 0.01
        ? `${local}${domain}`
        : r < 0.02
          ? `${local}@@${domain}`
          : r < 0.03
            ? ''
            : `${local}@${domain}`;
    const name = i % 5 === 0 ? `"${names[i % 10]}, ${names[(i + 3) % 10]}"` : names[i % 10]!;
    const note = i % 50 === 0 ? '"first line\nsecond ""quoted"" line"' : `note ${i % 997}`;
    const line = `${i},${name},${email},"Company ${i % 1000}, Inc.",${note}\n`;
    parts.push(line);
    bytes += Buffer.byteLength(line);
  }
  return Buffer.from(parts.join(''), 'utf8');
}

function dnsZones(): Zones {
  const zones: Zones = { 'mx.bench.test': { a: ['127.0.0.1'] } };
  // Every tenth domain does not exist (NXDOMAIN); the rest receive mail.
  for (let n = 0; n < DOMAINS; n++)
    if (n % 10 !== 9) zones[`d${n}.test`] = { mx: [{ exchange: 'mx.bench.test', priority: 10 }] };
  return zones;
}

async function pipeline(
  file: Buffer,
  baseUrl: string,
  apiKey: string,
): Promise<{ seconds: number; outBytes: number; jobId: string }> {
  const client = createMailvetClient({ baseUrl, apiKey });
  let t0 = 0;
  const end = await client.runFileJob({ emailColumn: 2, pollIntervalMs: 100 }, (uploadUrl) => {
    t0 = performance.now();
    return client.uploadFile(uploadUrl, file);
  });
  if (!end.download) throw new Error(`job ${end.job.status}: ${end.job.error}`);
  const download = await client.fetchResults(end.download.downloadUrl);
  let outBytes = 0;
  for await (const piece of download.body as unknown as AsyncIterable<Uint8Array>)
    outBytes += piece.byteLength;
  return { seconds: (performance.now() - t0) / 1000, outBytes, jobId: end.jobId };
}

/** The naive script: parse everything with papaparse, classify with the engine, unparse, write. */
async function baseline(filePath: string, outPath: string, engine: ValidationEngine): Promise<number> {
  const t0 = performance.now();
  const rows: string[][] = [];
  await new Promise<void>((resolve, reject) =>
    Papa.parse<string[]>(createReadStream(filePath), {
      step: (result) => void rows.push(result.data),
      complete: () => resolve(),
      error: reject,
    }),
  );
  const data = rows.slice(1).filter((row) => row.length > 1 || row[0] !== '');
  const batch = await engine.prepare(data.map((row) => row[2] ?? ''));
  const header = [...rows[0]!, 'mailvet_status'];
  const out = [header, ...data.map((row) => [...row, batch.statusOf(row[2] ?? '')])];
  writeFileSync(outPath, Papa.unparse(out));
  return (performance.now() - t0) / 1000;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mailvet-bench-'));
  const file = generateCsv();
  const filePath = path.join(dir, 'input.csv');
  writeFileSync(filePath, file);
  const rows = file.toString('latin1').split('\n').length - 1;
  console.log(`input: ${(file.length / 1048576).toFixed(1)} MB, ~${rows} lines`);

  const dns = await startFixtureDns(dnsZones());
  // Worker threads as `npm start` has them (LOCAL_WORKERS, else one per core).
  const workers = localWorkers();
  const runtime = await startTestRuntime(
    { DNS_SERVERS: dns.servers.join(','), ALLOW_PRIVATE_MX: 'true', LOG_LEVEL: 'warn' },
    { workers },
  );
  console.log(`local worker threads: ${workers}${workers === 0 ? ' (handlers on the main thread)' : ''}`);
  // The demo company's month (quota plus credits) is smaller than this file: credit it so the run measures
  // the pipeline, not the 402 path.
  await addCredits(demoIds.acme, rows);
  let peakRss = 0;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50);
  try {
    const run = await pipeline(file, runtime.baseUrl, runtime.keys.admin);
    clearInterval(sampler);
    console.log(
      `pipeline: ${run.seconds.toFixed(2)} s end to end, ${(file.length / 1048576 / run.seconds).toFixed(1)} MB/s, results ${(run.outBytes / 1048576).toFixed(1)} MB`,
    );
    console.log(
      `local runtime peak RSS (API, handlers, S3 and SQS emulators; DynamoDB Local's JVM excluded): ${(peakRss / 1048576).toFixed(0)} MB`,
    );
    const chunkMb = settings().CHUNK_SIZE_BYTES / 1048576;
    console.log(
      `largest buffer one invocation holds: a chunk (~${chunkMb.toFixed(0)} MB) plus its part, or an assembly group of 4 parts in flight`,
    );

    const engine = new ValidationEngine(engineOptionsFromSettings(settings()));
    const seconds = await baseline(filePath, path.join(dir, 'baseline.csv'), engine);
    console.log(
      `baseline (papaparse + engine + Papa.unparse): ${seconds.toFixed(2)} s, ${(file.length / 1048576 / seconds).toFixed(1)} MB/s`,
    );
    console.log(`ratio=${(run.seconds / seconds).toFixed(2)}`);
  } finally {
    clearInterval(sampler);
    await runtime.stop();
    await dns.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
