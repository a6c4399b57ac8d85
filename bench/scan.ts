// The upload scan alone (functions/domain/bulk/csv/scan.ts), as startProcessing runs it on bench:bulk's
// file: dialect, quote-aware rows, ~5 MiB chunks, duplicate hashes. CPU time per MB, best of N runs.
//   tsx bench/scan.ts                     this checkout's scan
//   tsx bench/scan.ts --against DIR       also another checkout's (e.g. a worktree of main), runs alternated
//                                         in the same minutes, with a check that both give the same result
//   ... --runs N (default 5)  --piece BYTES (stream piece size, default 65536)  --sample (estimate jobs)
//   ... --input FILE [--column N]  scans that file instead (e.g. one with many duplicates), email column N
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { generateCsv } from './bulk-input';
import type { ChunkRange, ScanOptions, ScanResult } from '../functions/domain/bulk/csv/scan';

type ScanCsv = (source: AsyncIterable<Uint8Array>, options: ScanOptions) => Promise<ScanResult>;

function argument(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
}

async function* pieces(input: Buffer, pieceBytes: number): AsyncIterable<Uint8Array> {
  for (let at = 0; at < input.length; at += pieceBytes) yield input.subarray(at, at + pieceBytes);
}

interface Run {
  cpuMs: number;
  /** Everything the scan decided, to compare two versions. */
  outcome: string;
}

async function runOnce(
  scanCsv: ScanCsv,
  file: Buffer,
  pieceBytes: number,
  sample: boolean,
  emailColumn: number,
): Promise<Run> {
  const chunks: ChunkRange[] = [];
  let seed = 3;
  const t0 = process.cpuUsage();
  const scan = await scanCsv(pieces(file, pieceBytes), {
    emailColumn,
    chunkSizeBytes: 5 * 1024 * 1024,
    findDuplicates: true,
    fileBytes: file.length,
    onChunks: (cut) => chunks.push(...cut),
    ...(sample
      ? {
          sample: {
            size: 2000,
            random: () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x80000000,
          },
        }
      : {}),
  });
  // startProcessing reads the count right after the scan: whatever work that takes is the scan's too
  const duplicates = scan.duplicates?.count;
  const used = process.cpuUsage(t0);
  const outcome = JSON.stringify({
    dialect: scan.dialect,
    dataRows: scan.dataRows,
    bytes: scan.bytes,
    chunks,
    duplicates,
    testAddresses: scan.duplicates?.testAddresses,
    pairs: scan.duplicates?.pairs().toString('base64'),
    sample: scan.sample,
  });
  return { cpuMs: (used.user + used.system) / 1000, outcome };
}

async function main(): Promise<void> {
  const runs = Number(argument('--runs') ?? 5);
  const pieceBytes = Number(argument('--piece') ?? 65536);
  const sample = process.argv.includes('--sample');
  const against = argument('--against');
  const input = argument('--input');
  const emailColumn = Number(argument('--column') ?? 2);
  const file = input ? readFileSync(input) : generateCsv();
  const mb = file.length / 1048576;
  const versions: { name: string; scanCsv: ScanCsv; cpu: number[]; outcome?: string }[] = [
    { name: 'this checkout', scanCsv: (await import('../functions/domain/bulk/csv/scan')).scanCsv, cpu: [] },
  ];
  if (against) {
    const module = (await import(path.resolve(against, 'functions/domain/bulk/csv/scan.ts'))) as {
      scanCsv: ScanCsv;
    };
    versions.push({ name: against, scanCsv: module.scanCsv, cpu: [] });
  }
  console.log(
    `input: ${mb.toFixed(1)} MB, pieces of ${pieceBytes} bytes, ${runs} runs each${sample ? ', with a sample' : ''}`,
  );
  for (let run = 0; run < runs; run++) {
    for (const version of versions) {
      const { cpuMs, outcome } = await runOnce(version.scanCsv, file, pieceBytes, sample, emailColumn);
      version.cpu.push(cpuMs);
      version.outcome ??= outcome;
      if (version.outcome !== outcome) throw new Error(`${version.name}: two runs disagree`);
    }
  }
  const best = (xs: number[]) => Math.min(...xs);
  for (const version of versions) {
    const ms = best(version.cpu);
    console.log(
      `${version.name}: scan CPU ${ms.toFixed(0)} ms best (median ${[...version.cpu].sort((a, b) => a - b)[version.cpu.length >> 1]!.toFixed(0)}), ${(ms / mb).toFixed(2)} ms/MB`,
    );
  }
  if (versions.length === 2) {
    const [mine, theirs] = versions as [(typeof versions)[0], (typeof versions)[0]];
    console.log(`ratio (this / ${theirs.name}): ${(best(mine.cpu) / best(theirs.cpu)).toFixed(2)}`);
    if (mine.outcome !== theirs.outcome)
      throw new Error('the two scans disagree (chunks, duplicates or sample)');
    console.log('same chunks, rows, duplicate pairs and sample');
  }
}

void main();
