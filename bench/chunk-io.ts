// A chunk validator's S3 traffic alone, as the validator's side pays for it: the ranged GET of each
// chunk of a generated upload (readPinnedRange) and the two PUTs of its part and row index (putObject,
// bodies of the sizes bench:bulk writes, the part written into a buffer as annotateChunk does), through
// the functions' own S3 client. The local S3 runs in a child process, so this process's CPU
// (process.cpuUsage: SDK, HTTP, sockets, body copies, page faults, GC) is the validator's alone, and
// the child's (from /proc: its main thread, and its other threads: the body writer, V8's helpers) is
// the local S3's side of the same requests, as the runtime's main thread pays for it in bench:bulk.
// Prints CPU ms per chunk, the best of `--rounds` rounds (the machine's load moves the rest).
// --no-pool gives no buffer back to chunkBuffers, so every chunk and part is a fresh buffer.
// --server-profile DIR writes the local S3 process's CPU profile (node --cpu-prof) into DIR.
//   npx tsx bench/chunk-io.ts [--mb N] [--rounds N] [--no-pool] [--server-profile DIR]
import os from 'node:os';
import { numberFlag } from './flags';
import { runAsBenchOrChild, withLocalS3Child } from './local-s3-child';
import { processThreadsCpu } from './thread-cpu';

const bucket = 'bench-chunk-io';
const credentials = { accessKeyId: 'bench-chunk-io', secretAccessKey: 'bench-chunk-io-secret' };
const childOptions = { bucket, credentials };

async function main(): Promise<void> {
  const mb = numberFlag('mb', 30);
  const rounds = numberFlag('rounds', 5);
  await withLocalS3Child(__filename, childOptions, async (child) => {
    const { putObject, readPinnedRange } = await import('../functions/store/bucket');
    const { chunkBuffers } = await import('../functions/buffer-pool');
    const pooled = !process.argv.includes('--no-pool');
    const giveBack = (buffer: Buffer) => (pooled ? chunkBuffers.give(buffer) : undefined);
    const { s3 } = await import('../functions/clients/s3');
    const { PutObjectCommand } = await import('@aws-sdk/client-s3');
    const { generateCsv } = await import('./bulk-input');

    const file = generateCsv(Math.round((mb * 1048576) / 62));
    const key = 'uploads/bench.csv';
    const put = await s3().send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: file }));
    const object = { key, etag: put.ETag! };
    // the scan's cut: ~5 MB ranges (row ends do not matter to the transfer)
    const chunkBytes = 5 * 1048576;
    const ranges: [number, number][] = [];
    for (let at = 0; at < file.length; at += chunkBytes)
      ranges.push([at, Math.min(file.length, at + chunkBytes)]);
    // bench:bulk's part is its chunk plus ~10% of statuses, its (binary) row index ~3% of the part
    const partBytes = Math.round(chunkBytes * 1.1);
    const index = Buffer.alloc(Math.round(partBytes * 0.027), 0x62);

    const oneChunk = async ([start, end]: [number, number], n: number) => {
      const body = await readPinnedRange(object, start, end);
      if (body.length !== end - start) throw new Error('short read');
      // the part: the chunk's bytes and some more, in a buffer as processChunkMessage takes one
      const part = chunkBuffers.take(partBytes);
      part.set(body, 0);
      part.fill(0x61, body.length);
      giveBack(body);
      await Promise.all([
        putObject(`parts/${n}.csv`, part, 'text/csv'),
        putObject(`parts/${n}.index`, index, 'text/plain'),
      ]);
      giveBack(part);
    };
    // warm up: connections, JIT
    for (const [n, range] of ranges.entries()) await oneChunk(range, n);
    let best = Infinity;
    let bestWall = Infinity;
    let bestServer = { main: Infinity, others: Infinity };
    for (let round = 0; round < rounds; round++) {
      const start = process.cpuUsage();
      const server = processThreadsCpu(child.pid!);
      const startedAt = performance.now();
      // two at once, as a worker thread holds ~2 chunks in bench:bulk
      for (let n = 0; n < ranges.length; n += 2)
        await Promise.all(ranges.slice(n, n + 2).map((range, k) => oneChunk(range, n + k)));
      const used = process.cpuUsage(start);
      const serverUsed = processThreadsCpu(child.pid!);
      best = Math.min(best, (used.user + used.system) / 1000 / ranges.length);
      bestWall = Math.min(bestWall, (performance.now() - startedAt) / ranges.length);
      const main = (serverUsed.main - server.main) / ranges.length;
      if (main < bestServer.main)
        bestServer = { main, others: (serverUsed.others - server.others) / ranges.length };
    }
    console.log(
      `${ranges.length} chunks of ${(chunkBytes / 1048576).toFixed(0)} MB: GET + PUT ${(partBytes / 1048576).toFixed(1)} MB + PUT ${(index.length / 1048576).toFixed(1)} MB${pooled ? '' : ', no buffer pool'}`,
    );
    console.log(
      `validator side CPU: ${best.toFixed(2)} ms per chunk; wall ${bestWall.toFixed(1)} ms per chunk, two at once (best of ${rounds} rounds)`,
    );
    console.log(
      `local S3 side CPU: main thread ${bestServer.main.toFixed(1)} ms per chunk, its other threads ${bestServer.others.toFixed(1)} ms (the round with the least main-thread CPU; /proc counts in 10 ms ticks; load ${os.loadavg()[0]!.toFixed(1)})`,
    );
  });
}

runAsBenchOrChild(main, childOptions);
