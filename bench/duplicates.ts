// Duplicate rows: what finding them costs. Three measurements on ~1.3M addresses (docs/bulk.md,
// "Duplicate rows"):
//   1. the upload scan of a ~100 MB file with and without the duplicate finder (the pipeline's only
//      change for a file without duplicates), best of five runs each, alternated;
//   2. the duplicate finder (hash, log, partitioned look-up) against a JS Map of the address strings:
//      time and heap;
//   3. with --dynamodb N: N conditional PutItems (a per-job set in DynamoDB would need one per row)
//      against DynamoDB Local, extrapolated to the file's rows.
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { tableName } from '../functions/clients/dynamodb';
import { scanCsv } from '../functions/domain/bulk/csv/scan';
import { comparisonKey, DuplicateFinder } from '../functions/domain/bulk/duplicates';
import { send, wroteIf } from '../functions/store/dynamodb';
import { startTestRuntime } from '../test/helpers/local-runtime';

const ROWS = 1_300_000;

/** ~100 MB in the shape of bench/bulk.ts's file; every fifth address repeats an earlier one. */
function generateCsv(): { file: Buffer; addresses: Buffer[] } {
  let seed = 42;
  const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const names = ['ann', 'bob', 'chloe', 'dmitri', 'eve', 'francois', 'gunther', 'hana', 'ines', 'jose'];
  const lines: string[] = ['id,name,email,company,note\n'];
  const addresses: Buffer[] = [];
  for (let i = 0; i < ROWS; i++) {
    const n = i % 5 === 4 ? Math.floor(rnd() * i) : i;
    const email = `${names[n % 10]}.${n}@d${n % 2000}.test`;
    addresses.push(Buffer.from(email));
    lines.push(
      `${i},${names[i % 10]},${email},"Company ${i % 1000}, Inc.",note ${i % 997} ${'x'.repeat(20)}\n`,
    );
  }
  return { file: Buffer.from(lines.join('')), addresses };
}

async function* pieces(input: Buffer): AsyncIterable<Uint8Array> {
  for (let at = 0; at < input.length; at += 65536) yield input.subarray(at, at + 65536);
}

async function scanSeconds(
  file: Buffer,
  findDuplicates: boolean,
): Promise<{ seconds: number; duplicates: number }> {
  const t0 = process.cpuUsage();
  const scan = await scanCsv(pieces(file), {
    emailColumn: 2,
    chunkSizeBytes: 4 * 1024 * 1024,
    findDuplicates,
    fileBytes: file.length,
    onChunks: () => undefined,
  });
  // the count is read before the clock stops: the finder's look-up runs when it is first asked
  const duplicates = scan.duplicates?.count ?? 0;
  return { seconds: cpuSeconds(t0), duplicates };
}

/** CPU seconds (user + system) since `t0`: steadier than wall time on a shared, loaded machine. */
function cpuSeconds(t0: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(t0);
  return (used.user + used.system) / 1e6;
}

/** Heap plus typed-array memory, MB (after a collection when run with --expose-gc). */
function heapMb(): number {
  global.gc?.();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return (heapUsed + arrayBuffers) / 1048576;
}

async function main(): Promise<void> {
  const { file, addresses } = generateCsv();
  console.log(`input: ${(file.length / 1048576).toFixed(1)} MB, ${ROWS} rows`);

  const plain: number[] = [];
  const finding: number[] = [];
  let found = 0;
  for (let run = 0; run < 5; run++) {
    plain.push((await scanSeconds(file, false)).seconds);
    const withFinder = await scanSeconds(file, true);
    finding.push(withFinder.seconds);
    found = withFinder.duplicates;
  }
  const best = (xs: number[]) => Math.min(...xs);
  console.log(
    `scan (CPU time): ${best(plain).toFixed(2)} s without the finder, ${best(finding).toFixed(2)} s with it (+${((best(finding) / best(plain) - 1) * 100).toFixed(0)}%), ${found} duplicates`,
  );

  let before = heapMb();
  let t0 = process.cpuUsage();
  const finder = new DuplicateFinder('utf-8', ROWS);
  addresses.forEach((address, i) => finder.row(i, address, 0, address.length));
  const repeats = finder.count;
  console.log(
    `duplicate finder (CPU time): ${(cpuSeconds(t0) * 1000).toFixed(0)} ms for ${ROWS} addresses, ${repeats} repeats, memory +${(heapMb() - before).toFixed(0)} MB`,
  );
  before = heapMb();
  t0 = process.cpuUsage();
  const strings = new Map<string, number>();
  addresses.forEach((address, i) => {
    const key = comparisonKey(address.toString('latin1'));
    if (!strings.has(key)) strings.set(key, i);
  });
  console.log(
    `JS Map of strings (CPU time): ${(cpuSeconds(t0) * 1000).toFixed(0)} ms, memory +${(heapMb() - before).toFixed(0)} MB (${strings.size} distinct)`,
  );

  const dynamoAt = process.argv.indexOf('--dynamodb');
  if (dynamoAt > 0) {
    const count = Number(process.argv[dynamoAt + 1] ?? 2000);
    const runtime = await startTestRuntime({ LOG_LEVEL: 'warn' });
    try {
      let next = 0;
      const start = performance.now();
      const worker = async () => {
        while (next < count) {
          const i = next++;
          await wroteIf(
            send(
              new PutCommand({
                TableName: tableName(),
                Item: { pk: 'BENCH#dup', sk: `H#${i}`, first: i },
                ConditionExpression: 'attribute_not_exists(pk)',
              }),
            ),
          );
        }
      };
      await Promise.all(Array.from({ length: 16 }, worker));
      const perSecond = count / ((performance.now() - start) / 1000);
      console.log(
        `DynamoDB Local: ${count} conditional PutItems, ${perSecond.toFixed(0)}/s (16 in flight); ${ROWS} rows would take ${(ROWS / perSecond).toFixed(0)} s`,
      );
    } finally {
      await runtime.stop();
    }
  }
}

void main();
