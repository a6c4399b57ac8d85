// The upload scan's share of the worker threads in profiles kept by `tsx bench/profile.ts bench/bulk.ts
// --keep DIR --pipeline-only`, counted in samples rather than summed time deltas: on a loaded machine a
// thread that waits for a core stretches the deltas of its samples, not their number. A sample is the
// scan's when its stack holds csv/scan.ts or startProcessing's scan (scanAndFanOut, the duplicate count).
// Its heaviest leaf functions are listed too.
//   tsx bench/scan-samples.ts DIR [DIR...] [--top N]
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string }; children?: number[] }[];
  samples: number[];
}

function isScanFrame({ functionName, url }: { functionName: string; url: string }): boolean {
  return (
    /csv\/scan\.ts$/.test(url) ||
    (/bulk\/start-processing\.ts$/.test(url) && functionName === 'scanAndFanOut') ||
    (/bulk\/duplicates\.ts$/.test(url) && functionName === 'get count')
  );
}

function count(dir: string, top: number): void {
  let scan = 0;
  let busy = 0;
  const leaves = new Map<string, number>();
  for (const file of readdirSync(dir).filter((f) => /^worker-.*\.cpuprofile$/.test(f))) {
    const profile = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as CpuProfile;
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    const parentOf = new Map<number, number>();
    for (const n of profile.nodes) for (const child of n.children ?? []) parentOf.set(child, n.id);
    const inScan = new Map<number, boolean>();
    const scanned = (id: number): boolean => {
      const known = inScan.get(id);
      if (known !== undefined) return known;
      const parent = parentOf.get(id);
      const answer = isScanFrame(byId.get(id)!.callFrame) || (parent !== undefined && scanned(parent));
      inScan.set(id, answer);
      return answer;
    };
    for (const id of profile.samples) {
      const frame = byId.get(id)!.callFrame;
      if (frame.functionName === '(idle)') continue;
      busy++;
      if (!scanned(id)) continue;
      scan++;
      const leaf = `${frame.functionName || '(anonymous)'} ${frame.url.split('/').slice(-2).join('/')}`;
      leaves.set(leaf, (leaves.get(leaf) ?? 0) + 1);
    }
  }
  console.log(
    `${dir}: the scan in ${scan} of ${busy} busy worker samples (${((100 * scan) / busy).toFixed(1)}%)`,
  );
  for (const [leaf, n] of [...leaves].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`  ${String(n).padStart(6)}  ${leaf}`);
}

const args = process.argv.slice(2);
const topAt = args.indexOf('--top');
const top = topAt >= 0 ? Number(args.splice(topAt, 2)[1]) : 8;
if (args.length === 0) throw new Error('usage: tsx bench/scan-samples.ts DIR [DIR...] [--top N]');
for (const dir of args) count(dir, top);
