// The local S3's multipart completion, alone: a bench:bulk-sized results file (20 parts of 5.5 MB,
// copied into the upload by UploadPartCopy as the assembly does), then CompleteMultipartUpload and a
// whole GET. Prints each step's wall time and the process's CPU in it (user + system; the server runs
// in this process), median of `--runs` (default 5). LOCAL_FSYNC as the runtime reads it (default normal).
//   npx tsx bench/s3-multipart.ts [--runs N]
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  PutObjectCommand,
  UploadPartCopyCommand,
} from '@aws-sdk/client-s3';
import { fsyncsFiles, localFsync } from '../local/fsync';
import { startLocalS3 } from '../local/s3/local-s3';
import { localS3Client } from '../test/helpers/local-s3-client';
import { median } from './stats';

const PARTS = 20;
const PART_BYTES = 5.5 * 1024 * 1024;
const bucket = 'bench-multipart';
const credentials = { accessKeyId: 'bench-multipart', secretAccessKey: 'bench-multipart-secret' };

interface Step {
  ms: number;
  cpuMs: number;
}

async function measure<T>(work: () => Promise<T>): Promise<[T, Step]> {
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  const value = await work();
  const used = process.cpuUsage(cpu);
  return [value, { ms: performance.now() - t0, cpuMs: (used.user + used.system) / 1000 }];
}

async function main(): Promise<void> {
  const runsFlag = process.argv.indexOf('--runs');
  const runs = runsFlag < 0 ? 5 : Number(process.argv[runsFlag + 1]);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'mailvet-bench-multipart-'));
  const fsync = fsyncsFiles(localFsync());
  const s3Server = await startLocalS3({ dataDir, buckets: [bucket], ...credentials, fsync });
  const s3 = localS3Client(s3Server.url, credentials);
  const steps: Record<'complete' | 'get', Step[]> = { complete: [], get: [] };
  try {
    for (let n = 0; n < PARTS; n++)
      await s3.send(
        new PutObjectCommand({ Bucket: bucket, Key: `parts/${n}`, Body: randomBytes(PART_BYTES) }),
      );
    for (let run = 0; run < runs; run++) {
      const key = `results/${run}.csv`;
      const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key }));
      const parts = await Promise.all(
        Array.from({ length: PARTS }, async (_, n) => {
          const { CopyPartResult } = await s3.send(
            new UploadPartCopyCommand({
              Bucket: bucket,
              Key: key,
              UploadId,
              PartNumber: n + 1,
              CopySource: `${bucket}/parts/${n}`,
            }),
          );
          return { ETag: CopyPartResult!.ETag!, PartNumber: n + 1 };
        }),
      );
      const [, complete] = await measure(() =>
        s3.send(
          new CompleteMultipartUploadCommand({
            Bucket: bucket,
            Key: key,
            UploadId,
            MultipartUpload: { Parts: parts },
          }),
        ),
      );
      const [bytes, get] = await measure(async () => {
        const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        let total = 0;
        for await (const piece of object.Body as AsyncIterable<Uint8Array>) total += piece.byteLength;
        return total;
      });
      if (bytes !== PARTS * PART_BYTES) throw new Error(`GET read ${bytes} bytes, not ${PARTS * PART_BYTES}`);
      steps.complete.push(complete);
      steps.get.push(get);
    }
  } finally {
    s3.destroy();
    await s3Server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const mb = ((PARTS * PART_BYTES) / 1048576).toFixed(0);
  console.log(`local S3, ${PARTS} parts, ${mb} MB, fsync ${fsync ? 'on' : 'off'}, median of ${runs}:`);
  for (const [name, list] of Object.entries(steps))
    console.log(
      `  ${name.padEnd(8)} ${median(list.map((s) => s.ms))
        .toFixed(0)
        .padStart(5)} ms wall, ${median(list.map((s) => s.cpuMs))
        .toFixed(0)
        .padStart(5)} ms CPU`,
    );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
