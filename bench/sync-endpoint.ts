// `npm run bench:sync [-- --seconds 30 --connections 10]`: load on POST /v1/email/validate of the local
// runtime (DynamoDB Local, local SQS, the real HTTP API and handlers), with the domain cache warm and the
// engine's fixture DNS server answering. The load comes from a second process running autocannon, so
// the load generator does not share the runtime's event loop. Not a test: it prints numbers; the last
// line is `p50_ms=<n> p99_ms=<n> requests_per_second=<n>` (goal: p50 under 10 ms).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { demoIds, demoKeys } from '../local/demo/accounts';
import { monthlyUsage } from '../functions/domain/usage';
import { createMailvetClient } from '../client';
import { startLocalRuntime } from '../local/runtime';
import { fixtureCanaryDomain, startFixtureDns } from '../test/unit/validation/fixtures/dns-server';
import { ZONES } from '../test/unit/validation/fixtures/world';

/** The part of autocannon's result used here (the package ships no type declarations). */
interface AutocannonResult {
  latency: { p50: number; p90: number; p99: number; max: number };
  requests: { average: number; total: number };
  statusCodeStats?: Record<string, { count: number }>;
  errors: number;
  timeouts: number;
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;

/** Addresses of every kind of verdict the sync path answers from a warm cache. */
const emails = [
  'alice@example-corp.test',
  'info@acme.test',
  'abuse@example-corp.test',
  'bob@nowhere-at-all.test',
  'jane@outllook.com',
  'not-an-address',
];

interface LoadPlan {
  url: string;
  key: string;
  seconds: number;
  connections: number;
}

interface LoadReport {
  p50: number;
  p90: number;
  p99: number;
  max: number;
  requestsPerSecond: number;
  total: number;
  statusCodes: Record<string, number>;
  errors: number;
  timeouts: number;
}

function flag(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  const value = at >= 0 ? Number(process.argv[at + 1]) : fallback;
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} needs a positive number`);
  return value;
}

/** The second process: autocannon's programmatic API, one JSON report on stdout. */
async function load(plan: LoadPlan): Promise<void> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const autocannon = require('autocannon') as Autocannon;
  const result = await autocannon({
    url: plan.url,
    connections: plan.connections,
    duration: plan.seconds,
    // each connection cycles through the addresses
    requests: emails.map((email, i) => ({
      method: 'POST' as const,
      headers: { 'x-api-key': plan.key, 'content-type': 'application/json' },
      body: JSON.stringify({ email, metadata: { bench: i } }),
    })),
  });
  const report: LoadReport = {
    p50: result.latency.p50,
    p90: result.latency.p90,
    p99: result.latency.p99,
    max: result.latency.max,
    requestsPerSecond: result.requests.average,
    total: result.requests.total,
    statusCodes: Object.fromEntries(
      Object.entries(result.statusCodeStats ?? {}).map(([code, stats]) => [code, stats.count]),
    ),
    errors: result.errors,
    timeouts: result.timeouts,
  };
  process.stdout.write(JSON.stringify(report));
}

function runLoadProcess(plan: LoadPlan): Promise<LoadReport> {
  return new Promise((resolve, reject) => {
    // the same file under the same loader (tsx), in load mode
    const child = spawn(process.execPath, [...process.execArgv, __filename, '--load', JSON.stringify(plan)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`load process exited with ${code}`));
      try {
        resolve(JSON.parse(out) as LoadReport);
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  });
}

async function main(): Promise<void> {
  const seconds = flag('seconds', 30);
  const connections = flag('connections', 10);
  const dns = await startFixtureDns(ZONES);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'mailvet-bench-sync-'));
  const runtime = await startLocalRuntime({
    port: 0,
    dataDir,
    env: {
      DNS_SERVERS: dns.servers.join(','),
      DNS_CANARY_DOMAINS: fixtureCanaryDomain,
      ALLOW_PRIVATE_MX: 'true',
      // the bench measures the endpoint, not the per-company limit (docs/api.md default 25/s)
      RATE_LIMIT_PER_SECOND: '1000000',
      LOG_LEVEL: 'warn',
    },
  });
  try {
    const url = `${runtime.baseUrl}/v1/email/validate`;
    const client = createMailvetClient({ baseUrl: runtime.baseUrl, apiKey: demoKeys.admin });
    // Warm: every domain in the engine's cache, the key and the code paths in the runtime's process.
    for (let round = 0; round < 20; round++) {
      for (const email of emails) {
        const answer = await client.submitValidation(email);
        if (!answer.done) throw new Error(`warm-up ${email}: 202, still pending after the sync budget`);
      }
    }
    const usageBefore = await monthlyUsage(demoIds.acme);
    console.log(
      `POST /v1/email/validate, ${connections} connections, ${seconds} s, warm cache (${os.cpus().length} cores)`,
    );
    const report = await runLoadProcess({ url, key: demoKeys.admin, seconds, connections });
    const counted = (await monthlyUsage(demoIds.acme)) - usageBefore;
    console.log(
      `requests: ${report.total}, status codes: ${JSON.stringify(report.statusCodes)}, errors: ${report.errors}, timeouts: ${report.timeouts}`,
    );
    console.log(`latency ms: p50 ${report.p50}, p90 ${report.p90}, p99 ${report.p99}, max ${report.max}`);
    console.log(
      `usage counted during the load: ${counted} (200 responses: ${report.statusCodes['200'] ?? 0})`,
    );
    console.log(
      `p50_ms=${report.p50} p99_ms=${report.p99} requests_per_second=${Math.round(report.requestsPerSecond)}`,
    );
  } finally {
    await runtime.stop();
    await dns.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const loadAt = process.argv.indexOf('--load');
const run = loadAt >= 0 ? load(JSON.parse(process.argv[loadAt + 1] ?? '{}') as LoadPlan) : main();
run.catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
