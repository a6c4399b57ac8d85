// The local S3's data path alone, as bench:bulk drives it: a 100 MB PUT to a presigned URL streamed from
// disk (the upload phase), a whole GET of it (the scan, the download) and 20 ranged GETs of 5 MB (the
// chunks). Client and server run in this process, as in bench:bulk. Prints each step's wall time and
// the CPU of the main thread and of the other threads by name (Linux /proc), median of `--runs`
// (default 5). LOCAL_FSYNC as the runtime reads it (default normal; bench:bulk runs with it off).
//   npx tsx bench/s3-put.ts [--runs N] [--mb 100] [--heap 50]
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { threadCpu } from './thread-cpu';
import { createReadStream } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { PerformanceObserver } from 'node:perf_hooks';
import path from 'node:path';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { fsyncsFiles, localFsync } from '../local/fsync';
import { startLocalS3 } from '../local/s3/local-s3';
import { localS3Client } from '../test/helpers/local-s3-client';
import { median } from './stats';

const bucket = 'bench-put';
const credentials = { accessKeyId: 'bench-put', secretAccessKey: 'bench-put-secret' };
const RANGES = 20;

/** Main-thread GC pause time (ms) so far. */
let gcMs = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) gcMs += entry.duration;
}).observe({ entryTypes: ['gc'] });

interface Step {
  ms: number;
  main: number;
  /** Of `main`: its GC pauses. */
  gc: number;
  /** CPU ms of the other threads, by thread name. */
  others: Map<string, number>;
}

async function measure<T>(work: () => Promise<T>): Promise<[T, Step]> {
  const before = threadCpu();
  const gcBefore = gcMs;
  const t0 = performance.now();
  const value = await work();
  const ms = performance.now() - t0;
  // the observer hears of the last collections a turn later
  await new Promise((resolve) => setImmediate(resolve));
  const gc = gcMs - gcBefore;
  const after = threadCpu();
  let main = 0;
  const others = new Map<string, number>();
  for (const [task, end] of after) {
    const used = (end.seconds - (before.get(task)?.seconds ?? 0)) * 1000;
    if (task === String(process.pid)) main += used;
    else others.set(end.name, (others.get(end.name) ?? 0) + used);
  }
  return [value, { ms, main, gc, others }];
}

/** A CSV-like file of `bytes` written in 1 MiB pieces. */
function writeInput(file: string, bytes: number): void {
  const line = 'someone.name@example.com,Some Name,Some City,12345\n';
  const piece = line.repeat(Math.ceil((1 << 20) / line.length)).slice(0, 1 << 20);
  const fd = openSync(file, 'w');
  try {
    for (let written = 0; written < bytes; written += piece.length)
      writeSync(fd, piece.slice(0, Math.min(piece.length, bytes - written)));
  } finally {
    closeSync(fd);
  }
}

/** As bench:bulk uploads: a PUT streamed from disk in 1 MiB reads. */
function upload(url: string, file: string, bytes: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      { method: 'PUT', headers: { 'content-type': 'text/csv', 'content-length': bytes } },
      (response) => {
        response.resume();
        response.on('end', () =>
          response.statusCode === 200 ? resolve() : reject(new Error(`PUT: HTTP ${response.statusCode}`)),
        );
      },
    );
    request.on('error', reject);
    createReadStream(file, { highWaterMark: 1 << 20 }).pipe(request);
  });
}

/** Bytes of a GET, read and dropped. */
function download(url: string, range?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: range ? { range } : {} }, (response) => {
        let total = 0;
        response.on('data', (piece: Buffer) => (total += piece.length));
        response.on('end', () =>
          response.statusCode === 200 || response.statusCode === 206
            ? resolve(total)
            : reject(new Error(`GET: HTTP ${response.statusCode}`)),
        );
      })
      .on('error', reject);
  });
}

async function main(): Promise<void> {
  const flag = (name: string, fallback: number) => {
    const at = process.argv.indexOf(name);
    return at < 0 ? fallback : Number(process.argv[at + 1]);
  };
  const runs = flag('--runs', 5);
  // The runtime's main thread holds ~50 MB of live objects during a bulk job; a full collection there
  // marks them all. `--heap MB` keeps as much alive here, so collections cost what they cost there.
  const ballast = Array.from({ length: Math.round(flag('--heap', 50) * 1024 * 8) }, (_, n) => ({
    n,
    text: `object ${n}`,
    list: [n, n + 1],
  }));
  const bytes = Math.round(flag('--mb', 100) * 1024 * 1024);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mailvet-bench-s3-put-'));
  const input = path.join(dir, 'input.csv');
  writeInput(input, bytes);
  const fsync = fsyncsFiles(localFsync());
  const s3Server = await startLocalS3({
    dataDir: path.join(dir, 's3'),
    buckets: [bucket],
    ...credentials,
    fsync,
  });
  const s3 = localS3Client(s3Server.url, credentials);
  const steps: Record<'put' | 'get' | 'ranges', Step[]> = { put: [], get: [], ranges: [] };
  try {
    for (let run = 0; run < runs; run++) {
      const key = `uploads/${run}.csv`;
      const putUrl = await getSignedUrl(
        s3,
        new PutObjectCommand({ Bucket: bucket, Key: key, ContentType: 'text/csv' }),
        { expiresIn: 600 },
      );
      const getUrl = await getSignedUrl(s3, new GetObjectCommand({ Bucket: bucket, Key: key }), {
        expiresIn: 600,
      });
      const [, put] = await measure(() => upload(putUrl, input, bytes));
      const [got, get] = await measure(() => download(getUrl));
      if (got !== bytes) throw new Error(`GET read ${got} bytes, not ${bytes}`);
      const size = Math.ceil(bytes / RANGES);
      const [ranged, ranges] = await measure(async () => {
        const counts = await Promise.all(
          Array.from({ length: RANGES }, (_, n) =>
            download(getUrl, `bytes=${n * size}-${Math.min(bytes, (n + 1) * size) - 1}`),
          ),
        );
        return counts.reduce((a, b) => a + b, 0);
      });
      if (ranged !== bytes) throw new Error(`ranged GETs read ${ranged} bytes, not ${bytes}`);
      steps.put.push(put);
      steps.get.push(get);
      steps.ranges.push(ranges);
    }
  } finally {
    s3.destroy();
    await s3Server.close();
    rmSync(dir, { recursive: true, force: true });
  }
  if (ballast.length === 0) throw new Error('the heap ballast is gone');
  const mb = bytes / 1048576;
  console.log(`local S3, ${mb.toFixed(0)} MB, fsync ${fsync ? 'on' : 'off'}, median of ${runs}:`);
  for (const [name, list] of Object.entries(steps)) {
    const names = [...new Set(list.flatMap((s) => [...s.others.keys()]))];
    const others = names
      .map((n) => [n, median(list.map((s) => s.others.get(n) ?? 0))] as const)
      .filter(([, ms]) => ms >= 5)
      .map(([n, ms]) => `${n} ${ms.toFixed(0)}`)
      .join(', ');
    const wall = median(list.map((s) => s.ms));
    const main = median(list.map((s) => s.main));
    const gc = median(list.map((s) => s.gc));
    console.log(
      `  ${name.padEnd(7)} ${wall.toFixed(0).padStart(5)} ms wall (${(mb / (wall / 1000)).toFixed(0)} MB/s), ` +
        `main ${main.toFixed(0)} ms CPU (${((main / mb) * 1000).toFixed(0)} µs/MB, GC pauses ${gc.toFixed(0)} ms); ` +
        `other threads (ms): ${others || '-'}`,
    );
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
