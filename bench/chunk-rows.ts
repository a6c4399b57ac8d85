// A chunk validator's steps per row, each alone: one generated chunk (the bench's rows, ~5 MB) read,
// classified (domains resolved before timing), annotated and indexed many times over, reported as CPU
// nanoseconds per row, the best of several batches (the machine's load moves the rest).
//   npx tsx bench/chunk-rows.ts [--rows N] [--batches N]
import { annotateChunk, readChunk, type ChunkLayout } from '../functions/domain/bulk/csv/annotate';
import { indexChunk } from '../functions/domain/bulk/csv/row-index';
import { chunkClassifier } from '../functions/domain/bulk/classifier';
import { classifyRows } from '../functions/domain/bulk/validate-chunk';
import { ValidationEngine } from '../functions/domain/validation';
import { startFixtureDns } from '../test/unit/validation/fixtures/dns-server';
import { dnsZones, generateCsv, HEADER } from './bulk-input';

function argument(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  return at < 0 ? fallback : Number(process.argv[at + 1]);
}

async function main(): Promise<void> {
  const rowCount = argument('--rows', 55_000);
  const batches = argument('--batches', 7);
  const file = generateCsv(rowCount);
  const layout: ChunkLayout = {
    delimiter: ',',
    encoding: 'utf-8',
    emailColumn: 2,
    chunkStart: 0,
    headerStart: 0,
    dataStart: HEADER.length + 1,
  };
  const dns = await startFixtureDns(dnsZones());
  try {
    const engine = new ValidationEngine({ dnsServers: dns.servers, allowPrivateMx: true });
    const classify = chunkClassifier(() => engine);
    const rows = readChunk(file, layout);
    const { verdicts } = await classifyRows(rows.emails, classify, 'bench');
    /** CPU ns per row of `step`, the best of `batches` batches of 5 calls (after 3 to warm up). */
    const time = async (step: () => unknown): Promise<string> => {
      for (let i = 0; i < 3; i++) await step();
      let best = Infinity;
      for (let batch = 0; batch < batches; batch++) {
        const start = process.cpuUsage();
        for (let i = 0; i < 5; i++) await step();
        const used = process.cpuUsage(start);
        best = Math.min(best, ((used.user + used.system) * 1000) / 5 / rows.emails.length);
      }
      return `${best.toFixed(1)} ns/row`;
    };
    console.log(`${rows.emails.length} data rows, ${(file.length / 1048576).toFixed(1)} MB`);
    console.log(`  readChunk      ${await time(() => readChunk(file, layout))}`);
    console.log(`  classifyRows   ${await time(() => classifyRows(rows.emails, classify, 'bench'))}`);
    console.log(`  annotateChunk  ${await time(() => annotateChunk(file, rows, layout, verdicts))}`);
    console.log(`  indexChunk     ${await time(() => indexChunk(rows, verdicts, 'utf-8'))}`);
  } finally {
    await dns.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
