// Bulk pipeline benchmark: a generated 100 MB CSV through the local runtime (PUT -> completed ->
// downloaded, DNS served on 127.0.0.1) against a naive single-process baseline (papaparse stream +
// Papa.unparse + the same engine) in the same run. The results file must equal, byte for byte, the input
// with each data row's status (the naive run's engine verdict) appended; the bench fails otherwise. The
// last line reads `ratio=<pipeline / baseline>`. `-- --pipeline-only` skips the baseline and the check
// (npm run profile:bulk profiles the pipeline alone). The job's timeline (bench/bulk-timeline.ts) is
// printed after the pipeline's figures: each phase's start, end and the process's CPU meanwhile.
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
import { resultIndexKey } from '../functions/domain/bulk/object-keys';
import { addCredits } from '../functions/domain/usage';
import { readObjectBytes } from '../functions/store/bucket';
import { ValidationEngine, engineOptionsFromSettings } from '../functions/domain/validation';
import { settings } from '../functions/settings';
import { localWorkers } from '../local/runtime';
import { startTestRuntime } from '../test/helpers/local-runtime';
import { startFixtureDnsThread } from '../test/unit/validation/fixtures/dns-server-thread';
import { DOMAINS, HEADER, dnsZones, generateCsv, generateRecords } from './bulk-input';
import { threadCpu } from './thread-cpu';
import { benchEstimate } from './bulk-estimate';
import { CpuSampler, printTimeline, type BenchMarks } from './bulk-timeline';

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
    // 1 MiB reads, as a client streaming a large file would (the default 64 KiB is 1,600 reads)
    const body = createReadStream(filePath, { highWaterMark: 1 << 20 });
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

/** The threads that used CPU between two snapshots, grouped by name (the main thread apart). */
function cpuByThread(
  before: Map<string, { name: string; seconds: number }>,
  after: Map<string, { name: string; seconds: number }>,
): string {
  const byName = new Map<string, number>();
  for (const [task, { name, seconds }] of after) {
    const used = seconds - (before.get(task)?.seconds ?? 0);
    const label = task === String(process.pid) ? 'main' : name;
    byName.set(label, (byName.get(label) ?? 0) + used);
  }
  return [...byName]
    .filter(([, seconds]) => seconds >= 0.05)
    .sort((a, b) => b[1] - a[1])
    .map(([name, seconds]) => `${name} ${seconds.toFixed(2)}`)
    .join(', ');
}

/** CPU seconds the fixture DNS server's thread used between two snapshots. */
function dnsThreadCpu(
  before: Map<string, { name: string; seconds: number }>,
  after: Map<string, { name: string; seconds: number }>,
  task: string,
): number | undefined {
  const end = after.get(task);
  return end && end.seconds - (before.get(task)?.seconds ?? 0);
}

/** How often the bench polls the job, as a client would. */
const pollIntervalMs = 100;

async function pipeline(
  filePath: string,
  baseUrl: string,
  apiKey: string,
): Promise<{ seconds: number; outBytes: number; digest: string; jobId: string; marks: BenchMarks }> {
  const client = createMailvetClient({ baseUrl, apiKey });
  const marks: BenchMarks = {
    uploadStart: 0,
    uploadEnd: 0,
    completedSeen: 0,
    downloadEnd: 0,
    pollIntervalMs,
  };
  const end = await client.runFileJob(
    { emailColumn: 2, pollIntervalMs },
    async (uploadUrl) => {
      marks.uploadStart = performance.now();
      await uploadFromDisk(uploadUrl, filePath);
      marks.uploadEnd = performance.now();
    },
    (progress) => {
      if (progress.phase === 'processing' && progress.job.status === 'completed' && !marks.completedSeen)
        marks.completedSeen = performance.now();
    },
  );
  const t0 = marks.uploadStart;
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
  marks.downloadEnd = performance.now() - hashMs;
  const seconds = (marks.downloadEnd - t0) / 1000;
  return { seconds, outBytes, digest: hash.digest('hex'), jobId: end.jobId, marks };
}

/**
 * After the pipeline's figures: the results' row index size, and one filtered copy with the reason
 * column (made on its first request from the results and the index) with its time and digest, which
 * must not change when the index's format does.
 */
async function rowIndexAndVariant(baseUrl: string, apiKey: string, jobId: string): Promise<void> {
  const index = await readObjectBytes(resultIndexKey(demoIds.acme, jobId));
  console.log(`results row index: ${(index.length / 1048576).toFixed(2)} MB`);
  const client = createMailvetClient({ baseUrl, apiKey });
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const descriptor = await client.getDownload(jobId, {
    status: ['safe', 'dead_email'],
    columns: ['status', 'reason'],
  });
  const madeMs = performance.now() - t0;
  const used = process.cpuUsage(cpu0);
  const bytes = Buffer.from(await (await client.fetchResults(descriptor.downloadUrl)).arrayBuffer());
  console.log(
    `variant safe+dead_email+reason: made in ${(madeMs / 1000).toFixed(2)} s (CPU ${((used.user + used.system) / 1e6).toFixed(2)} s), ${(bytes.length / 1048576).toFixed(1)} MB, sha256 ${createHash('sha256').update(bytes).digest('hex')}`,
  );
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

  // In a worker thread of its own: a real DNS server is another machine, not a load on the runtime's
  // main thread (nor on the baseline's, which queries it too), and it encodes each answer once.
  const dns = await startFixtureDnsThread(dnsZones(), { cacheAnswers: true });
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
    const threadsBefore = threadCpu();
    const calls = runtime.runtime.awsCalls.length;
    const cpu = new CpuSampler();
    const run = await pipeline(filePath, runtime.baseUrl, runtime.keys.admin);
    const pipelineCpu = cpuSeconds(pipelineCpuStart);
    const threadsAfter = threadCpu();
    const byThread = cpuByThread(threadsBefore, threadsAfter);
    cpu.stop();
    clearInterval(sampler);
    console.log(
      `pipeline: ${run.seconds.toFixed(2)} s end to end, ${(inputMb / run.seconds).toFixed(1)} MB/s, results ${(run.outBytes / 1048576).toFixed(1)} MB`,
    );
    console.log(`pipeline CPU: ${pipelineCpu.toFixed(2)} s in this process (DynamoDB Local's JVM excluded)`);
    if (byThread) console.log(`  by thread (s): ${byThread}`);
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
    const questions: [string, string][] = [];
    for (const name of ['mx.bench.test', ...Array.from({ length: DOMAINS }, (_, n) => `d${n}.test`)])
      for (const type of ['MX', 'A', 'AAAA']) questions.push([name, type]);
    const dnsQueries = (await dns.counts(questions)).reduce((sum, count) => sum + count, 0);
    const dnsCpu = dns.task === undefined ? undefined : dnsThreadCpu(threadsBefore, threadsAfter, dns.task);
    console.log(
      `DNS queries to the fixture server: ${dnsQueries} (${DOMAINS} domains, ${workers} workers)${dnsCpu === undefined ? '' : `; its thread's CPU (in the pipeline's): ${dnsCpu.toFixed(2)} s`}`,
    );
    printTimeline(run.marks, runtime.runtime.awsCalls.slice(calls), cpu);
    console.log(`results sha256 ${run.digest}`);
    await rowIndexAndVariant(runtime.baseUrl, runtime.keys.admin, run.jobId);
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
