// `npm run profile:bulk-workers`: where the local runtime's worker threads spend their CPU in bench:bulk,
// by stage of a chunk invocation (S3 GET, parse, engine, DNS client, annotate, S3 PUT, DynamoDB ...),
// with the scan and the assembly that share those threads apart. Each CPU sample goes to the first
// frame from the leaf up that a stage claims; samples taken after an await have no caller, so SDK and
// socket work that resumes there lands in "AWS SDK + HTTP (async)" rather than in one call.
//   tsx bench/worker-breakdown.ts              profiles a bench:bulk run (bench/profile.ts), then reads it
//   tsx bench/worker-breakdown.ts --dir DIR    reads worker-*.cpuprofile files kept by `profile.ts --keep DIR`
//   ... --drill "<stage>"                      also lists that stage's heaviest call paths (leaf first)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string }; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}

type Frame = { name: string; url: string };

/** Stage rules, tried on each frame from the leaf up; the first rule a frame matches names the sample. */
const stages: { stage: string; match: (f: Frame) => boolean }[] = [
  { stage: 'GC', match: (f) => f.name === '(garbage collector)' },
  { stage: 'profiler (bench only)', match: (f) => f.url === 'node:inspector' },
  {
    stage: 'DNS client (queries, sockets, timers)',
    match: (f) => /^node:(internal\/)?dns|dns-lookup\.ts$|ipaddr\.js/.test(f.url),
  },
  {
    stage: 'S3 GET (body read)',
    match: (f) => /store\/bucket\.ts$/.test(f.url) && /readPinnedRange|readObject|^$/.test(f.name),
  },
  { stage: 'S3 PUT', match: (f) => /store\/bucket\.ts$/.test(f.url) && f.name === 'putObject' },
  { stage: 'parse rows (readChunk)', match: (f) => f.name === 'readChunk' || f.name === 'readChunkRows' },
  { stage: 'annotate part', match: (f) => f.name === 'annotateChunk' },
  { stage: 'row index', match: (f) => f.name === 'indexChunk' },
  {
    stage: 'engine (prepare, classify)',
    match: (f) =>
      /domain\/validation\/|bulk\/classifier\.ts$/.test(f.url) ||
      /^(classifyRows|countTestAddresses)$/.test(f.name),
  },
  { stage: 'counts (countStatuses)', match: (f) => f.name === 'countStatuses' },
  {
    stage: 'DynamoDB (store modules)',
    match: (f) => /functions\/store\/(dynamodb|jobs\/|entities\/)/.test(f.url),
  },
  {
    stage: 'scan (startProcessing, not a chunk)',
    match: (f) =>
      /csv\/(scan|dialect)\.ts$|bulk\/(start-processing|duplicates)\.ts$|csv\/row-bytes\.ts$/.test(f.url),
  },
  {
    stage: 'assembly (last chunk)',
    match: (f) => /bulk\/(assemble|assemble-duplicates|completion)\.ts$/.test(f.url),
  },
  { stage: 'chunk glue (processChunkMessage)', match: (f) => /bulk\/validate-chunk\.ts$/.test(f.url) },
  {
    stage: 'invocation glue (worker messages, call recording, sqsBatch, log)',
    match: (f) =>
      /local\/worker-thread\.ts$|clients\/call-recording\.ts$|middlewares\/|functions\/log\.ts$|@middy|powertools|node:worker_threads/.test(
        f.url,
      ) || f.name === 'postMessage',
  },
  {
    stage: 'AWS SDK + HTTP (async)',
    match: (f) =>
      /@smithy|@aws-sdk|@aws-crypto|node:_http|node:http|node:net|node:internal\/stream|node:internal\/streams|node:stream|fast-xml-parser/.test(
        f.url,
      ),
  },
  { stage: 'module loading', match: (f) => /modules\/(cjs|esm)|tsx\/dist|esbuild/.test(f.url) },
];

/** Self time per stage, and per call path (leaf and 3 callers) of the stage `drill`. */
function breakdown(profile: CpuProfile, drill?: string, paths?: Map<string, number>): Map<string, number> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parentOf = new Map<number, number>();
  for (const n of profile.nodes) for (const child of n.children ?? []) parentOf.set(child, n.id);
  const stageOf = new Map<number, string>();
  const classify = (leaf: number): string => {
    const known = stageOf.get(leaf);
    if (known !== undefined) return known;
    let stage = 'other';
    for (let id: number | undefined = leaf; id !== undefined; id = parentOf.get(id)) {
      const { functionName, url } = byId.get(id)!.callFrame;
      const hit = stages.find((s) => s.match({ name: functionName, url }));
      if (hit) {
        stage = hit.stage;
        break;
      }
    }
    const self = byId.get(leaf)!.callFrame.functionName;
    if (stage === 'other' && (self === '(program)' || self === '(idle)')) stage = self;
    stageOf.set(leaf, stage);
    return stage;
  };
  const out = new Map<string, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const stage = classify(profile.samples[i]!);
    const micros = Math.max(0, profile.timeDeltas[i] ?? 0);
    out.set(stage, (out.get(stage) ?? 0) + micros);
    if (stage === drill && paths) {
      const names: string[] = [];
      for (
        let id: number | undefined = profile.samples[i];
        id !== undefined && names.length < 4;
        id = parentOf.get(id)
      ) {
        const { functionName, url } = byId.get(id)!.callFrame;
        names.push(`${functionName || '(anonymous)'} ${url.split('/').slice(-2).join('/')}`);
      }
      const key = names.join(' < ');
      paths.set(key, (paths.get(key) ?? 0) + micros);
    }
  }
  return out;
}

function report(dir: string, drill?: string): void {
  const files = readdirSync(dir).filter((f) => /^worker-\d+\.cpuprofile$/.test(f));
  if (files.length === 0) throw new Error(`no worker-*.cpuprofile in ${dir}`);
  const total = new Map<string, number>();
  const paths = new Map<string, number>();
  for (const file of files) {
    const stages = breakdown(
      JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as CpuProfile,
      drill,
      paths,
    );
    for (const [stage, micros] of stages) total.set(stage, (total.get(stage) ?? 0) + micros);
  }
  const idle = total.get('(idle)') ?? 0;
  total.delete('(idle)');
  const cpu = [...total.values()].reduce((a, b) => a + b, 0);
  console.log(
    `\nworker threads (${files.length}): ${(cpu / 1e6).toFixed(2)} s of CPU sampled, idle ${(idle / 1e6).toFixed(2)} s`,
  );
  for (const [stage, micros] of [...total].sort((a, b) => b[1] - a[1]))
    console.log(
      `${(micros / 1000).toFixed(0).padStart(8)} ms ${((100 * micros) / cpu).toFixed(1).padStart(5)}%  ${stage}`,
    );
  if (!drill) return;
  console.log(`\n${drill}: heaviest call paths (leaf < callers)`);
  for (const [key, micros] of [...paths].sort((a, b) => b[1] - a[1]).slice(0, 40))
    console.log(`${(micros / 1000).toFixed(0).padStart(8)} ms  ${key}`);
}

function main(): void {
  const at = process.argv.indexOf('--dir');
  const drillAt = process.argv.indexOf('--drill');
  const drill = drillAt >= 0 ? process.argv[drillAt + 1] : undefined;
  if (at >= 0) return report(path.resolve(process.argv[at + 1] ?? '.'), drill);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mailvet-workers-'));
  try {
    const run = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        path.join(__dirname, 'profile.ts'),
        'bench/bulk.ts',
        '--pipeline-only',
        '--top',
        '15',
        '--keep',
        dir,
      ],
      { cwd: path.resolve(__dirname, '..'), stdio: 'inherit' },
    );
    if (run.status !== 0) throw new Error(`bench/profile.ts exited with ${run.status ?? run.signal}`);
    report(dir, drill);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main();
