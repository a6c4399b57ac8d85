// A chunk validator's steps per row, each alone: one generated chunk (the bench's rows, ~5 MB) read,
// classified (domains resolved before timing), annotated and indexed many times over, reported as CPU
// nanoseconds per row, the best of several batches (the machine's load moves the rest). First, each
// step's first call in the process: a worker runs each ten times or so, much of it as cold code.
//   npx tsx bench/chunk-rows.ts [--rows N] [--batches N]
// With the collector exposed and a young generation no step fills, also the heap each step allocates
// (bytes a row, counts included), the garbage a worker's collector handles for it:
//   node --expose-gc --max-semi-space-size=256 --import tsx bench/chunk-rows.ts
import {
  annotateChunk,
  readChunk,
  type ChunkLayout,
  type ChunkRows,
} from '../functions/domain/bulk/csv/annotate';
import { indexChunk } from '../functions/domain/bulk/csv/row-index';
import { chunkClassifier, type ChunkVerdict } from '../functions/domain/bulk/classifier';
import { classifyRows, countTestAddresses } from '../functions/domain/bulk/validate-chunk';
import { countStatuses } from '../functions/domain/bulk/statuses';
import { ValidationEngine } from '../functions/domain/validation';
import { startFixtureDns } from '../test/unit/validation/fixtures/dns-server';
import { DOMAINS, dnsZones, generateCsv, HEADER } from './bulk-input';

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
    // the domains resolved from a list of their own, so the first calls below are cold code, not DNS
    await engine.prepareDomains(Array.from({ length: DOMAINS }, (_, n) => `d${n}.test`));
    const firstMs = (step: () => unknown) => async () => {
      const start = process.cpuUsage();
      await step();
      const used = process.cpuUsage(start);
      return ((used.user + used.system) / 1000).toFixed(1);
    };
    let rows!: ChunkRows;
    let verdicts!: ChunkVerdict[];
    const firstRead = await firstMs(() => (rows = readChunk(file, layout)))();
    const firstClassify = await firstMs(async () => {
      verdicts = (await classifyRows(rows.emails, classify, 'bench')).verdicts;
    })();
    console.log(
      `first calls in the process (ms CPU): readChunk ${firstRead}, classifyRows ${firstClassify}, ` +
        `annotateChunk ${await firstMs(() => annotateChunk(file, rows, layout, verdicts))()}, ` +
        `indexChunk ${await firstMs(() => indexChunk(rows, verdicts, 'utf-8'))()}, ` +
        `counts ${await firstMs(() => [countStatuses(verdicts), countTestAddresses(rows.emails)])()}`,
    );
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
    const gc = (globalThis as { gc?: () => void }).gc;
    if (gc) {
      /** Heap bytes a row that `step` allocates (no collection in between: the young generation is large). */
      const heap = async (step: () => unknown): Promise<string> => {
        gc();
        const before = process.memoryUsage().heapUsed;
        await step();
        return `${((process.memoryUsage().heapUsed - before) / rows.emails.length).toFixed(1)} B/row`;
      };
      console.log(
        `heap allocated: readChunk ${await heap(() => readChunk(file, layout))}, ` +
          `classifyRows ${await heap(() => classifyRows(rows.emails, classify, 'bench'))}, ` +
          `annotateChunk ${await heap(() => annotateChunk(file, rows, layout, verdicts))}, ` +
          `indexChunk ${await heap(() => indexChunk(rows, verdicts, 'utf-8'))}, ` +
          `counts ${await heap(() => [countStatuses(verdicts), countTestAddresses(rows.emails)])}`,
      );
    }
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
