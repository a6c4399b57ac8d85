// The local S3's fixed cost per request, apart from the bytes (bench/chunk-io.ts and bench/s3-put.ts
// have those): small GETs, ranged GETs and PUTs of a 1 KiB object through the functions' own S3 client,
// against a local S3 configured as the runtime configures it (CORS for every origin) in a child process.
// Prints, per request, the child's main-thread CPU (what the runtime's main thread pays) and its other
// threads' (the body writer, libuv's pool, V8's helpers), and this process's (the client: SDK, HTTP).
// Many requests a round, so /proc's 10 ms ticks round away; the best of `--rounds` rounds.
//   npx tsx bench/s3-requests.ts [--requests 2000] [--rounds 3] [--server-profile DIR]
import os from 'node:os';
import { numberFlag } from './flags';
import { runAsBenchOrChild, withLocalS3Child } from './local-s3-child';
import { processThreadsCpu } from './thread-cpu';

const bucket = 'bench-s3-requests';
const credentials = { accessKeyId: 'bench-s3-requests', secretAccessKey: 'bench-s3-requests-secret' };
const childOptions = { bucket, credentials, corsOrigins: ['*'] };

async function main(): Promise<void> {
  const requests = numberFlag('requests', 2000);
  const rounds = numberFlag('rounds', 3);
  await withLocalS3Child(__filename, childOptions, async (child) => {
    const { putObject, readObjectBytes, readPinnedRange } = await import('../functions/store/bucket');
    const { s3 } = await import('../functions/clients/s3');
    const { PutObjectCommand } = await import('@aws-sdk/client-s3');
    const body = Buffer.alloc(1024, 0x61);
    const put = await s3().send(new PutObjectCommand({ Bucket: bucket, Key: 'small.csv', Body: body }));
    const object = { key: 'small.csv', etag: put.ETag! };

    const kinds: [string, (n: number) => Promise<unknown>][] = [
      ['GET 1 KiB', () => readObjectBytes('small.csv')],
      ['ranged GET (If-Match) of 512 B', () => readPinnedRange(object, 256, 768)],
      ['PUT 1 KiB', (n) => putObject(`puts/${n % 50}.csv`, body, 'text/csv')],
    ];
    for (const [name, request] of kinds) {
      // four at once, as bench:bulk's workers have a few requests out
      const runRound = async () => {
        let next = 0;
        await Promise.all(
          Array.from({ length: 4 }, async () => {
            while (next < requests) await request(next++);
          }),
        );
      };
      await runRound();
      let best = { main: Infinity, others: Infinity, client: Infinity };
      for (let round = 0; round < rounds; round++) {
        const server = processThreadsCpu(child.pid!);
        const client = process.cpuUsage();
        await runRound();
        const used = process.cpuUsage(client);
        const after = processThreadsCpu(child.pid!);
        const main = (after.main - server.main) / requests;
        if (main < best.main)
          best = {
            main,
            others: (after.others - server.others) / requests,
            client: (used.user + used.system) / 1000 / requests,
          };
      }
      console.log(
        `${name.padEnd(32)} local S3 main thread ${(best.main * 1000).toFixed(0)} µs, its other threads ${(best.others * 1000).toFixed(0)} µs; client ${(best.client * 1000).toFixed(0)} µs a request (load ${os.loadavg()[0]!.toFixed(1)})`,
      );
    }
  });
}

runAsBenchOrChild(main, childOptions);
