// The chunk stage's CPU, step by step, on one thread: the bench's generated CSV cut into chunks as the
// scan cuts them, each read into rows, classified (domains resolved before timing, so DNS does not
// count), annotated and indexed as a validator does, without S3, SQS or DynamoDB. The figure is CPU
// time per MB of input (process.cpuUsage), which the machine's load moves much less than wall time.
//   npx tsx bench/bulk-chunk.ts [--mb N] [--rounds N] [--chunk-mb N]
import { annotateChunk, readChunk } from '../functions/domain/bulk/csv/annotate';
import type { TextEncoding } from '../functions/domain/bulk/csv/encoding';
import { indexChunk } from '../functions/domain/bulk/csv/row-index';
import { scanCsv, type ChunkRange } from '../functions/domain/bulk/csv/scan';
import { chunkClassifier } from '../functions/domain/bulk/classifier';
import { classifyRows, countTestAddresses } from '../functions/domain/bulk/validate-chunk';
import { countStatuses } from '../functions/domain/bulk/statuses';
import { ValidationEngine } from '../functions/domain/validation';
import { startFixtureDns } from '../test/unit/validation/fixtures/dns-server';
import { dnsZones, generateCsv } from './bulk-input';

function argument(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  return at < 0 ? fallback : Number(process.argv[at + 1]);
}

const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

async function main(): Promise<void> {
  const mb = argument('--mb', 20);
  const rounds = argument('--rounds', 3);
  // rows of ~95 bytes: the first `mb` MB of the bench's file
  const file = generateCsv(Math.round((mb * 1048576) / 95));
  // the CHUNK_SIZE_BYTES default (functions/settings.ts)
  const chunkSizeBytes = argument('--chunk-mb', 5) * 1048576;
  const chunks: ChunkRange[] = [];
  // the scan as the pipeline runs it (duplicates found), in 64 KiB pieces as a stream gives them
  const scanStart = process.cpuUsage();
  await scanCsv(
    (async function* () {
      for (let at = 0; at < file.length; at += 65536) yield file.subarray(at, at + 65536);
    })(),
    {
      emailColumn: 2,
      chunkSizeBytes,
      findDuplicates: true,
      fileBytes: file.length,
      onChunks: () => undefined,
    },
  );
  const scanMs = cpuMs(scanStart);
  const scan = await scanCsv(
    (async function* () {
      yield file;
    })(),
    {
      emailColumn: 2,
      chunkSizeBytes,
      onChunks: (cut) => chunks.push(...cut),
    },
  );
  const layout = { ...scan.dialect, emailColumn: 2 };
  const dns = await startFixtureDns(dnsZones());
  const engine = new ValidationEngine({ dnsServers: dns.servers, allowPrivateMx: true });
  const classify = chunkClassifier(() => engine);
  try {
    // every domain resolved once, before anything is timed
    for (const chunk of chunks) {
      const bytes = file.subarray(chunk.start, chunk.end);
      const rows = readChunk(bytes, { ...layout, chunkStart: chunk.start });
      await classify(
        rows.emails.map((email) => email ?? ''),
        'bench',
      );
    }
    const steps = { read: 0, classify: 0, annotate: 0, index: 0, counts: 0 };
    const total = process.cpuUsage();
    for (let round = 0; round < rounds; round++) {
      for (const chunk of chunks) {
        const bytes = file.subarray(chunk.start, chunk.end);
        let t = process.cpuUsage();
        const rows = readChunk(bytes, { ...layout, chunkStart: chunk.start });
        const emails = rows.emails;
        steps.read += cpuMs(t);
        t = process.cpuUsage();
        const { verdicts } = await classifyRows(emails, classify, 'bench');
        steps.classify += cpuMs(t);
        t = process.cpuUsage();
        // as processChunkMessage: the verdicts as they are (their statuses are read in place)
        annotateChunk(bytes, rows, layout, verdicts);
        steps.annotate += cpuMs(t);
        t = process.cpuUsage();
        indexChunk(rows, verdicts, layout.encoding as TextEncoding);
        steps.index += cpuMs(t);
        t = process.cpuUsage();
        countStatuses(verdicts);
        countTestAddresses(emails);
        steps.counts += cpuMs(t);
      }
    }
    const inputMb = (file.length / 1048576) * rounds;
    const perMb = (ms: number) => `${(ms / inputMb).toFixed(1)} ms/MB`;
    console.log(
      `${(file.length / 1048576).toFixed(1)} MB, ${chunks.length} chunks of ~${(chunkSizeBytes / 1048576).toFixed(0)} MB, ${rounds} rounds`,
    );
    for (const [step, ms] of Object.entries(steps)) console.log(`  ${step.padEnd(9)} ${perMb(ms)}`);
    console.log(
      `scan CPU: ${(scanMs / (file.length / 1048576)).toFixed(1)} ms/MB (one pass, duplicates found)`,
    );
    console.log(`chunk stage CPU: ${perMb(cpuMs(total))} (GC included)`);
  } finally {
    await dns.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
