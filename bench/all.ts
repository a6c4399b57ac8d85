// `npm run bench [-- --quick]`: every benchmark, one after the other (never two at once: they would
// measure each other), each in its own process, then one table: figure | goal | now | baseline | ratio.
// Each benchmark's baseline is measured in the same run where one exists (docs/benchmarks.md says
// which); where none does, the ratio is against the goal. `--quick` runs reduced sizes to check
// direction on a busy machine. The load (`uptime`'s one-minute average) is printed beside each.
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';

interface Bench {
  name: string;
  file: string;
  args: string[];
  quickArgs: string[];
  /** Rows of the table from the benchmark's output (its machine-readable lines). */
  rows(output: Output): Row[];
}

interface Row {
  figure: string;
  goal: string;
  now: number | undefined;
  unit: string;
  /** The same-run baseline, when the benchmark measures one. */
  baseline?: number;
  /** now / baseline (or / goal when there is no baseline); `higher` says which way is better. */
  ratio: number | undefined;
  ratioOf: string;
}

/** The benchmark's output: every `key=value` pair it printed, the last one of each key winning. */
type Output = { values: Record<string, number>; text: string };

function parse(text: string): Output {
  const values: Record<string, number> = {};
  for (const [, key, value] of text.matchAll(/\b([a-z][a-z0-9_]*)=(-?[0-9.]+|true|false)\b/g))
    values[key!] = value === 'true' ? 1 : value === 'false' ? 0 : Number(value);
  return { values, text };
}

const div = (a: number | undefined, b: number | undefined) =>
  a === undefined || b === undefined || b === 0 ? undefined : a / b;

/** A row with no baseline: `now` over the goal's number. */
const againstGoal = (
  figure: string,
  goal: string,
  now: number | undefined,
  unit: string,
  target: number,
): Row => ({
  figure,
  goal,
  now,
  unit,
  ratio: div(now, target),
  ratioOf: 'the goal',
});

/** A number printed in a line that matches `pattern` (its first group), e.g. the bulk bench's seconds. */
function numberIn(text: string, pattern: RegExp): number | undefined {
  const match = pattern.exec(text);
  return match ? Number(match[1]) : undefined;
}

const regexBaseline = `a regex-only validator loop over the same kind of addresses, in this run`;

const benches: Bench[] = [
  {
    name: 'engine',
    file: 'engine.ts',
    args: [],
    quickArgs: [],
    rows: ({ values }) => [
      {
        figure: 'engine: addresses/s, warm domain cache',
        goal: '≥ 4,500,000',
        now: values.addresses_per_second,
        unit: '/s',
        baseline: regexOnlyRate(),
        ratio: div(values.addresses_per_second, regexOnlyRate()),
        ratioOf: regexBaseline,
      },
    ],
  },
  {
    name: 'sync',
    file: 'sync-endpoint.ts',
    args: ['--seconds', '30', '--connections', '10'],
    quickArgs: ['--seconds', '8', '--connections', '10'],
    rows: ({ values }) => [
      {
        figure: 'sync: POST /v1/email/validate req/s, 10 connections',
        goal: '≥ 250',
        now: values.requests_per_second,
        unit: '/s',
        baseline: values.baseline_requests_per_second,
        ratio: div(values.requests_per_second, values.baseline_requests_per_second),
        ratioOf: 'a bare node:http server answering the same body to the same load, in this run',
      },
      againstGoal('sync: p50 ms, 10 connections', '< 40', values.p50_ms, 'ms', 40),
      againstGoal('sync: sequential DynamoDB rounds per request (max)', '≤ 3', values.rounds_max, '', 3),
      {
        figure: 'sync: usage counted exactly (1 = yes)',
        goal: '1',
        now: values.usage_exact,
        unit: '',
        ratio: values.usage_exact,
        ratioOf: 'the goal',
      },
    ],
  },
  {
    name: 'bulk',
    file: 'bulk.ts',
    args: [],
    quickArgs: [],
    rows: ({ values, text }) => {
      const pipeline = numberIn(text, /^pipeline: ([0-9.]+) s/m);
      const baseline = numberIn(text, /^baseline [^:]*: ([0-9.]+) s/m);
      return [
        {
          figure: 'bulk: 100 MB CSV, PUT to downloaded, s',
          goal: 'ratio ≤ 0.5',
          now: pipeline,
          unit: 's',
          baseline,
          ratio: values.ratio ?? div(pipeline, baseline),
          ratioOf: 'naive papaparse + engine + Papa.unparse on the same file, in this run',
        },
      ];
    },
  },
  {
    name: 'probe',
    file: 'probe.ts',
    args: [],
    quickArgs: ['--addresses', '5000', '--domains', '50'],
    rows: ({ values }) => [
      againstGoal('probe: probed addresses/s', '≥ 1,000', values.probe_addresses_per_second, '/s', 1000),
    ],
  },
  {
    name: 'workspace',
    file: 'workspace.ts',
    args: [],
    quickArgs: [],
    rows: ({ values }) => [
      againstGoal('workspace: list page p95 ms, limit 50', '≤ 50', values.p95_ms_limit50, 'ms', 50),
      {
        figure: 'workspace: list page p95 ms, limit 1000',
        goal: '≤ 20 × limit 50',
        now: values.p95_ms_limit1000,
        unit: 'ms',
        baseline: values.p95_ms_limit50,
        ratio: div(values.p95_ms_limit1000, values.p95_ms_limit50),
        ratioOf: 'the limit-50 page in this run (a page of 20 times the rows)',
      },
    ],
  },
  {
    name: 'calls',
    file: 'calls.ts',
    args: [],
    quickArgs: ['--rows', '20000'],
    rows: ({ text }) => {
      const perThousand = numberIn(text, /per 1,000 rows: DynamoDB ([0-9.]+) requests/);
      return [
        {
          figure: 'calls: DynamoDB requests per 1,000 bulk rows',
          goal: '≤ 0.37 (last round)',
          now: perThousand,
          unit: '',
          ratio: div(perThousand, 0.37),
          ratioOf: 'the last recorded figure',
        },
      ];
    },
  },
  {
    name: 'calls-probe',
    file: 'calls.ts',
    args: ['--probe'],
    quickArgs: ['--probe', '--probe-addresses', '500', '--probe-domains', '10'],
    rows: ({ text }) => {
      const perThousand = numberIn(text, /per 1,000 rows: DynamoDB ([0-9.]+) requests/);
      const perAddress = perThousand === undefined ? undefined : perThousand / 1000;
      return [
        {
          figure: 'calls: DynamoDB requests per probed address',
          goal: '≤ 0.28 (last round)',
          now: perAddress,
          unit: '',
          ratio: div(perAddress, 0.28),
          ratioOf: 'the last recorded figure',
        },
      ];
    },
  },
];

/** Addresses a second a bare regex check classifies (the engine's baseline), measured here and now. */
let regexRate: number | undefined;
function regexOnlyRate(): number {
  if (regexRate !== undefined) return regexRate;
  const pattern = /^[a-z0-9._%+-]+@[a-z0-9.-]+\.[a-z]{2,}$/i;
  const addresses = Array.from({ length: 200_000 }, (_, i) =>
    i % 7 === 0 ? `broken.${i}example.com` : `first.last${i}@d${i % 2000}.example.com`,
  );
  let best = 0;
  for (let round = 0; round < 5; round++) {
    let valid = 0;
    const t0 = performance.now();
    for (const address of addresses) if (pattern.test(address)) valid++;
    const seconds = (performance.now() - t0) / 1000;
    if (valid === 0) throw new Error('regex baseline matched nothing');
    best = Math.max(best, addresses.length / seconds);
  }
  regexRate = Math.round(best);
  return regexRate;
}

function run(bench: Bench, quick: boolean): Promise<{ output: Output; seconds: number; code: number }> {
  const file = path.join(__dirname, bench.file);
  const args = quick ? bench.quickArgs : bench.args;
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    // the same loader (tsx) as this process
    const child = spawn(process.execPath, [...process.execArgv, file, ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      process.stdout.write(chunk);
    });
    child.on('error', reject);
    child.on('exit', (code) =>
      resolve({ output: parse(text), seconds: (performance.now() - t0) / 1000, code: code ?? 1 }),
    );
  });
}

function formatNumber(value: number | undefined, unit = ''): string {
  if (value === undefined || !Number.isFinite(value)) return 'n/a';
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2;
  // small ratios keep two significant digits
  const text =
    value !== 0 && Math.abs(value) < 0.1
      ? value.toPrecision(2)
      : value.toLocaleString('en-US', { maximumFractionDigits: digits });
  return `${text}${unit && unit !== '/s' ? ` ${unit}` : ''}`;
}

function table(rows: (Row & { load: string })[]): string {
  const header = ['figure', 'goal', 'now', 'baseline (same run)', 'ratio', 'ratio against', 'load'];
  const cells = rows.map((row) => [
    row.figure,
    row.goal,
    formatNumber(row.now, row.unit),
    row.baseline === undefined ? '—' : formatNumber(row.baseline, row.unit),
    formatNumber(row.ratio),
    row.ratioOf,
    row.load,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (cols: string[]) => `| ${cols.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}

async function main(): Promise<void> {
  const quick = process.argv.includes('--quick');
  const only = process.argv
    .find((arg) => arg.startsWith('--only='))
    ?.slice('--only='.length)
    .split(',');
  const rows: (Row & { load: string })[] = [];
  const failed: string[] = [];
  for (const bench of benches) {
    if (only && !only.includes(bench.name)) continue;
    console.log(`\n=== bench ${bench.name}${quick ? ' (quick)' : ''}, load ${os.loadavg()[0]!.toFixed(1)}`);
    const { output, seconds, code } = await run(bench, quick);
    const load = os.loadavg()[0]!.toFixed(1);
    if (code !== 0) failed.push(`${bench.name} (exit ${code})`);
    console.log(`=== bench ${bench.name}: ${seconds.toFixed(0)} s, exit ${code}`);
    for (const row of bench.rows(output)) rows.push({ ...row, load });
  }
  console.log(`\n${table(rows)}`);
  if (failed.length) {
    console.error(`failed: ${failed.join(', ')}`);
    process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
