// Bulk pipeline benchmark: a generated 100 MB CSV through the local runtime (PUT -> completed ->
// downloaded, DNS served on 127.0.0.1) against a naive single-process baseline (papaparse stream +
// Papa.unparse + the same engine) in the same run. The results file must equal, byte for byte, the input
// with each data row's status (the naive run's engine verdict) appended; the bench fails otherwise. The
// last line reads `ratio=<pipeline / baseline>`. `-- --pipeline-only` skips the baseline and the check
// (npm run profile:bulk profiles the pipeline alone).
import { createHash } from 'node:crypto';
import {
  closeSync,
  createReadStream,
  mkdtempSync,
  openSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import Papa from 'papaparse';
import { createMailvetClient } from '../client';
import { demoIds } from '../local/demo/accounts';
import { addCredits } from '../functions/domain/usage';
import { ValidationEngine, engineOptionsFromSettings } from '../functions/domain/validation';
import { settings } from '../functions/settings';
import { localWorkers } from '../local/runtime';
import { startTestRuntime } from '../test/helpers/local-runtime';
import { startFixtureDns, type Zones } from '../test/unit/validation/fixtures/dns-server';
import { benchEstimate } from './bulk-estimate';

const TARGET_BYTES = 100 * 1024 * 1024 - 64 * 1024;
const DOMAINS = 2_000;

const HEADER = 'id,name,email,company,note';

/**
 * ~1.1M rows: quoted fields, some newlines inside quotes, skewed domains, 3% invalid addresses. Each
 * data record (without its line ending) and its email cell go to `onRecord`; the same seed gives the
 * same rows every time, so the check regenerates them rather than holding 1.1M strings during the run
 * (`maxRows`: the first that many of them).
 */
function generateRecords(onRecord: (record: string, email: string) => void, maxRows = Infinity): void {
  let seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const names = ['Ann', 'Bob', 'Chloé', 'Dmitri', 'Eve', 'François', 'Günther', 'Hana', 'Ines', 'José'];
  let bytes = HEADER.length + 1;
  for (let i = 0; bytes < TARGET_BYTES && i < maxRows; i++) {
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
    const record = `${i},${name},${email},"Company ${i % 1000}, Inc.",${note}`;
    onRecord(record, email);
    bytes += Buffer.byteLength(record) + 1;
  }
}

function generateCsv(maxRows = Infinity): Buffer {
  const parts: string[] = [`${HEADER}\n`];
  generateRecords((record) => parts.push(`${record}\n`), maxRows);
  return Buffer.from(parts.join(''), 'utf8');
}

/**
 * Writes the generated CSV to `filePath` in 1 MiB pieces and returns its line count: the bench never
 * holds the whole file in memory, so its own input does not count in the runtime's peak RSS twice.
 */
function writeCsv(filePath: string): number {
  const fd = openSync(filePath, 'w');
  let lines = 1;
  let piece = `${HEADER}\n`;
  try {
    generateRecords((record) => {
      piece += `${record}\n`;
      // a record with a newline inside its quotes spans two lines of the file
      lines += 1 + (record.includes('\n') ? 1 : 0);
      if (piece.length >= 1 << 20) {
        writeSync(fd, piece);
        piece = '';
      }
    });
    writeSync(fd, piece);
  } finally {
    closeSync(fd);
  }
  return lines;
}

/**
 * PUTs the file at `filePath` to a presigned URL as a stream from disk (a fetch with a Buffer body
 * would hold the file, and a copy of it, in memory for the whole upload).
 */
function uploadFromDisk(uploadUrl: string, filePath: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      uploadUrl,
      {
        method: 'PUT',
        headers: { 'content-type': 'text/csv', 'content-length': statSync(filePath).size },
      },
      (response) => {
        const answer: Buffer[] = [];
        response.on('data', (piece: Buffer) => answer.push(piece));
        response.on('end', () =>
          response.statusCode === 200
            ? resolve()
            : reject(new Error(`upload: HTTP ${response.statusCode}: ${Buffer.concat(answer).toString()}`)),
        );
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    const body = createReadStream(filePath);
    body.on('error', (error) => request.destroy(error));
    body.pipe(request);
  });
}

/** SHA-256 of the results the pipeline must produce: each record, a comma, its status, a newline. */
function expectedDigest(statusOf: (email: string) => string): string {
  const hash = createHash('sha256');
  hash.update(`${HEADER},mailvet_status\n`);
  generateRecords((record, email) => hash.update(`${record},${statusOf(email)}\n`));
  return hash.digest('hex');
}

function dnsZones(): Zones {
  const zones: Zones = { 'mx.bench.test': { a: ['127.0.0.1'] } };
  // Every tenth domain does not exist (NXDOMAIN); the rest receive mail.
  for (let n = 0; n < DOMAINS; n++)
    if (n % 10 !== 9) zones[`d${n}.test`] = { mx: [{ exchange: 'mx.bench.test', priority: 10 }] };
  return zones;
}

async function pipeline(
  filePath: string,
  baseUrl: string,
  apiKey: string,
): Promise<{ seconds: number; outBytes: number; digest: string; jobId: string }> {
  const client = createMailvetClient({ baseUrl, apiKey });
  let t0 = 0;
  const end = await client.runFileJob({ emailColumn: 2, pollIntervalMs: 100 }, (uploadUrl) => {
    t0 = performance.now();
    return uploadFromDisk(uploadUrl, filePath);
  });
  if (!end.download) throw new Error(`job ${end.job.status}: ${end.job.error}`);
  const download = await client.fetchResults(end.download.downloadUrl);
  let outBytes = 0;
  // hashed as it arrives, its time taken out of the figure (the check is the bench's, not the pipeline's)
  const hash = createHash('sha256');
  let hashMs = 0;
  for await (const piece of download.body as unknown as AsyncIterable<Uint8Array>) {
    outBytes += piece.byteLength;
    const h0 = performance.now();
    hash.update(piece);
    hashMs += performance.now() - h0;
  }
  const seconds = (performance.now() - t0 - hashMs) / 1000;
  return { seconds, outBytes, digest: hash.digest('hex'), jobId: end.jobId };
}

/** The naive script: parse everything with papaparse, classify with the engine, unparse, write. */
async function baseline(
  filePath: string,
  outPath: string,
  engine: ValidationEngine,
): Promise<{ seconds: number; statusOf: (email: string) => string }> {
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
  return { seconds: (performance.now() - t0) / 1000, statusOf: (email) => batch.statusOf(email) };
}

async function main(): Promise<void> {
  const pipelineOnly = process.argv.includes('--pipeline-only');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mailvet-bench-'));
  const filePath = path.join(dir, 'input.csv');
  const rows = writeCsv(filePath);
  const inputMb = statSync(filePath).size / 1048576;
  console.log(`input: ${inputMb.toFixed(1)} MB, ~${rows} lines`);

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
  // RSS is the whole process: every thread's heap and buffers, code, the emulators, this bench. At the
  // peak it also notes the main thread's share (its V8 heap and its ArrayBuffers; each thread counts its own).
  let peak = process.memoryUsage();
  const sampler = setInterval(() => {
    const now = process.memoryUsage();
    if (now.rss > peak.rss) peak = now;
  }, 200);
  try {
    // CPU this process spent (the machine is shared: wall time moves with its load, CPU time much less)
    const cpuSeconds = (since: NodeJS.CpuUsage) => {
      const used = process.cpuUsage(since);
      return (used.user + used.system) / 1e6;
    };
    const pipelineCpuStart = process.cpuUsage();
    const run = await pipeline(filePath, runtime.baseUrl, runtime.keys.admin);
    const pipelineCpu = cpuSeconds(pipelineCpuStart);
    clearInterval(sampler);
    console.log(
      `pipeline: ${run.seconds.toFixed(2)} s end to end, ${(inputMb / run.seconds).toFixed(1)} MB/s, results ${(run.outBytes / 1048576).toFixed(1)} MB`,
    );
    console.log(`pipeline CPU: ${pipelineCpu.toFixed(2)} s in this process (DynamoDB Local's JVM excluded)`);
    const mb = (bytes: number) => (bytes / 1048576).toFixed(0);
    console.log(
      `local runtime peak RSS, the whole process (API, handlers, workers, S3 and SQS emulators, this bench; DynamoDB Local's JVM excluded): ${mb(peak.rss)} MB`,
    );
    console.log(
      `  at the peak: main thread's heap ${mb(peak.heapTotal)} MB, its ArrayBuffers and Buffers ${mb(peak.arrayBuffers)} MB, the rest (workers' heaps and Buffers, code, native) ${mb(peak.rss - peak.heapTotal - peak.arrayBuffers)} MB`,
    );
    const chunkMb = settings().CHUNK_SIZE_BYTES / 1048576;
    console.log(
      `largest buffer one invocation holds: a chunk (~${chunkMb.toFixed(0)} MB) plus its part, or an assembly group of 4 parts in flight`,
    );

    // The engine resolves each domain once per worker: more queries than that would be charged here.
    let dnsQueries = 0;
    for (const name of ['mx.bench.test', ...Array.from({ length: DOMAINS }, (_, n) => `d${n}.test`)])
      for (const type of ['MX', 'A', 'AAAA']) dnsQueries += dns.count(name, type);
    console.log(`DNS queries to the fixture server: ${dnsQueries} (${DOMAINS} domains, ${workers} workers)`);
    console.log(`results sha256 ${run.digest}`);
    if (pipelineOnly) return;

    const engine = new ValidationEngine(engineOptionsFromSettings(settings()));
    const baselineCpuStart = process.cpuUsage();
    const { seconds, statusOf } = await baseline(filePath, path.join(dir, 'baseline.csv'), engine);
    const baselineCpu = cpuSeconds(baselineCpuStart);
    console.log(
      `baseline (papaparse + engine + Papa.unparse): ${seconds.toFixed(2)} s, ${(inputMb / seconds).toFixed(1)} MB/s, CPU ${baselineCpu.toFixed(2)} s`,
    );
    const expected = expectedDigest(statusOf);
    if (expected !== run.digest)
      throw new Error(`results differ from the input plus the naive run's statuses (sha256 ${expected})`);
    console.log('results: byte-identical to the input plus the statuses of the naive run');
    console.log(`cpu_ratio=${(pipelineCpu / baselineCpu).toFixed(2)}`);
    console.log(`ratio=${(run.seconds / seconds).toFixed(2)}`);
  } finally {
    clearInterval(sampler);
    await runtime.stop();
    await dns.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

// `--estimate [rows]`: an estimate of a 100,000-row file against its full job (bench/bulk-estimate.ts)
const estimateFlag = process.argv.indexOf('--estimate');
const run =
  estimateFlag < 0
    ? main
    : () => benchEstimate(generateCsv, dnsZones, Number(process.argv[estimateFlag + 1] ?? 100_000));
run().catch((error) => {
  console.error(error);
  process.exit(1);
});
