// `npm run profile:bulk` / `npm run profile:engine`: runs a benchmark under `node --cpu-prof` (through
// tsx) and prints the functions with the most self time, summed over every thread's profile. Profiles go
// to a temporary directory (kept only with --keep <dir>): commit the command, not the profile.
//   tsx bench/profile.ts <bench file> [--top N] [--keep DIR] [bench args...]
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The parts of V8's .cpuprofile format read here. */
interface CpuProfile {
  nodes: {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
    children?: number[];
  }[];
  samples: number[];
  timeDeltas: number[];
}

interface Row {
  name: string;
  where: string;
  micros: number;
}

/** Self time per function (µs): each sample's delta goes to the node it landed in. */
function selfTimes(profile: CpuProfile, root: string): Map<string, Row> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parentOf = new Map<number, number>();
  for (const n of profile.nodes) for (const child of n.children ?? []) parentOf.set(child, n.id);
  /** A WebAssembly frame is named by its nearest JavaScript caller (llhttp, the lexer...). */
  const callerOf = (id: number): string => {
    for (let p = parentOf.get(id); p !== undefined; p = parentOf.get(p)) {
      const frame = byId.get(p)!.callFrame;
      if (frame.functionName && !frame.url.startsWith('wasm:')) return ` <- ${frame.functionName}`;
    }
    return '';
  };
  const out = new Map<string, Row>();
  for (let i = 0; i < profile.samples.length; i++) {
    const node = byId.get(profile.samples[i]!);
    if (!node) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const file = url.startsWith('file://') ? path.relative(root, new URL(url).pathname) : url;
    // tsx's transpiled lines do not match the source's: project files are named without one
    const where = !file ? '' : file.endsWith('.ts') ? file : `${file}:${lineNumber + 1}`;
    const name = (functionName || '(anonymous)') + (url.startsWith('wasm:') ? callerOf(node.id) : '');
    if (name === '(idle)') continue; // waiting on I/O: not CPU time
    const key = `${name} ${where}`;
    const row = out.get(key) ?? { name, where, micros: 0 };
    row.micros += Math.max(0, profile.timeDeltas[i] ?? 0);
    out.set(key, row);
  }
  return out;
}

function main(): void {
  // --top N and --keep DIR are this script's; the bench file and every other argument go to the bench
  const args = process.argv.slice(2);
  let top = 30;
  let keep: string | undefined;
  const benchArgs: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--top') top = Number(args[++i]);
    else if (args[i] === '--keep') keep = args[++i];
    else if (args[i] !== '--') benchArgs.push(args[i]!);
  }
  const bench = benchArgs.shift();
  if (!bench || !Number.isInteger(top) || top < 1)
    throw new Error('usage: tsx bench/profile.ts <bench file> [--top N] [--keep DIR] [bench args...]');
  const dir = keep ? path.resolve(keep) : mkdtempSync(path.join(os.tmpdir(), 'mailvet-prof-'));
  mkdirSync(dir, { recursive: true });
  const root = path.resolve(__dirname, '..');
  try {
    const run = spawnSync(
      process.execPath,
      ['--cpu-prof', `--cpu-prof-dir=${dir}`, '--import', 'tsx', path.resolve(bench), ...benchArgs],
      // the local runtime's worker threads profile themselves into the same directory (local/worker-thread.ts)
      { cwd: root, stdio: 'inherit', env: { ...process.env, MAILVET_CPU_PROFILE: dir } },
    );
    if (run.status !== 0) throw new Error(`${bench} exited with ${run.status ?? run.signal}`);
    const total = new Map<string, Row>();
    let sampled = 0;
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))) {
      const profile = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as CpuProfile;
      let fileMicros = 0;
      for (const [key, row] of selfTimes(profile, root)) {
        fileMicros += row.micros;
        const sum = total.get(key) ?? { ...row, micros: 0 };
        sum.micros += row.micros;
        sampled += row.micros;
        total.set(key, sum);
      }
      console.log(`${file}: ${(fileMicros / 1e6).toFixed(1)} s of CPU`);
    }
    const rows = [...total.values()].sort((a, b) => b.micros - a.micros).slice(0, top);
    console.log(
      `\ntop ${rows.length} functions by self time (all threads, ${(sampled / 1e6).toFixed(1)} s of CPU sampled, idle excluded):`,
    );
    for (const r of rows)
      console.log(
        `${(r.micros / 1000).toFixed(0).padStart(8)} ms ${((100 * r.micros) / sampled).toFixed(1).padStart(5)}%  ${r.name}  ${r.where}`,
      );
    if (keep) console.log(`profiles kept in ${dir} (open them in Chrome DevTools)`);
  } finally {
    if (!keep) rmSync(dir, { recursive: true, force: true });
  }
}

main();
