// `npm run bench:sync [-- --seconds 30 --connections 10 --no-baseline]`: load on POST /v1/email/validate of the local
// runtime (DynamoDB Local, local SQS, the real HTTP API and handlers), with the domain cache warm and the
// engine's fixture DNS server answering. The load comes from a second process running autocannon, so
// the load generator does not share the runtime's event loop. First it sends 60 requests one at a time
// with the runtime's call recorder on and prints the DynamoDB calls per request by kind and the
// sequential rounds; after the load, the CPU per request of each process, whether usage counted exactly
// the completed requests stored, and the same load against a bare node:http server (the baseline). Not a
// test: it prints numbers; the last line is `p50_ms=<n> p99_ms=<n> requests_per_second=<n>
// baseline_requests_per_second=<n> rounds_avg=<n> rounds_max=<n> usage_exact=<bool>`.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { recordAwsCalls } from '../functions/clients/call-recording';
import { demoIds, demoKeys } from '../local/demo/accounts';
import { monthlyUsage } from '../functions/domain/usage';
import { createMailvetClient } from '../client';
import { queryAll } from '../functions/store/dynamodb';
import { validationRequestKey } from '../functions/store/keys';
import { localFsync } from '../local/fsync';
import type { LocalRuntime } from '../local/runtime';
import { callsPerInvocation } from '../test/helpers/call-rounds';
import { startSyncBenchRuntime } from './sync-runtime';
import { numberFlag } from './flags';
import { processCpuMs } from './thread-cpu';
import { readJvmPid } from '../local/stale-jvm';

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
  /** CPU the load generator used (ms). */
  cpuMs: number;
}

/** The second process: autocannon's programmatic API, one JSON report on stdout. */
async function load(plan: LoadPlan): Promise<void> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const autocannon = require('autocannon') as Autocannon;
  const cpuBefore = process.cpuUsage();
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
    cpuMs: cpuMs(process.cpuUsage(cpuBefore)),
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

const cpuMs = (usage: NodeJS.CpuUsage) => (usage.user + usage.system) / 1000;

/** The DynamoDB Local JVM's process id (the runtime writes it to a pid file in its data directory). */
function jvmPid(dataDir: string): number | undefined {
  return readJvmPid(path.join(dataDir, 'dynamodb', 'jvm.pid'))?.pid;
}

/** Completed single validations stored for the company (each counted once when not a test address). */
async function completedRequests(companyId: string): Promise<number> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    FilterExpression: '#status = :completed',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: {
      ':pk': validationRequestKey(companyId, '').pk,
      ':prefix': validationRequestKey(companyId, '').sk,
      ':completed': 'completed',
    },
    ProjectionExpression: 'sk',
  });
  return items.length;
}

/** The DynamoDB calls of one warm request, averaged over `requests` sequential ones. */
interface CallProfile {
  requests: number;
  perRequest: Record<string, number>;
  rounds: { min: number; max: number; average: number };
}

/**
 * Sends `requests` warm requests one at a time with the runtime's call recorder on, then turns the
 * recorder off (it would only slow the load down).
 */
async function profileCalls(
  runtime: LocalRuntime,
  submit: (email: string) => Promise<unknown>,
  requests: number,
): Promise<CallProfile> {
  runtime.awsCalls.length = 0;
  for (let i = 0; i < requests; i++) await submit(emails[i % emails.length]!);
  const invocations = callsPerInvocation(runtime.awsCalls, 'validateEmail');
  recordAwsCalls(undefined);
  runtime.awsCalls.length = 0;
  if (invocations.length !== requests)
    throw new Error(`recorded ${invocations.length} validateEmail invocations of ${requests}`);
  const totals: Record<string, number> = {};
  for (const { byOperation, other } of invocations)
    for (const [operation, n] of Object.entries({ ...byOperation, ...other }))
      totals[operation] = (totals[operation] ?? 0) + n;
  const rounds = invocations.map((calls) => calls.rounds);
  return {
    requests,
    perRequest: Object.fromEntries(
      Object.entries(totals).map(([operation, n]) => [operation, Math.round((n / requests) * 100) / 100]),
    ),
    rounds: {
      min: Math.min(...rounds),
      max: Math.max(...rounds),
      average: Math.round((rounds.reduce((a, b) => a + b, 0) / requests) * 100) / 100,
    },
  };
}

/**
 * The same load against a bare node:http server in this process answering `body`: what the machine,
 * the HTTP stack and the load generator allow at this moment, so the endpoint's figure can be read as
 * a ratio on a loaded machine.
 */
async function measureBaseline(body: string, seconds: number, connections: number): Promise<LoadReport> {
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    return await runLoadProcess({ url: `http://127.0.0.1:${port}/`, key: 'none', seconds, connections });
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

async function main(): Promise<void> {
  const seconds = numberFlag('seconds', 30);
  const connections = numberFlag('connections', 10);
  const { runtime, dns, dataDir } = await startSyncBenchRuntime('sync', { recordAwsCalls: true });
  try {
    const url = `${runtime.baseUrl}/v1/email/validate`;
    const client = createMailvetClient({ baseUrl: runtime.baseUrl, apiKey: demoKeys.admin });
    const sample = await fetch(url, {
      method: 'POST',
      headers: { 'x-api-key': demoKeys.admin, 'content-type': 'application/json' },
      body: JSON.stringify({ email: emails[0] }),
    });
    const sampleBody = await sample.text();
    // Warm: every domain in the engine's cache, the key and the code paths in the runtime's process.
    for (let round = 0; round < 20; round++) {
      for (const email of emails) {
        const answer = await client.submitValidation(email);
        if (!answer.done) throw new Error(`warm-up ${email}: 202, still pending after the sync budget`);
      }
    }
    const profile = await profileCalls(runtime, (email) => client.submitValidation(email), 60);
    const calls = Object.entries(profile.perRequest)
      .map(([operation, n]) => `${operation} ${n}`)
      .join(', ');
    console.log(`calls per request (${profile.requests} warm requests, one at a time): ${calls}`);
    console.log(
      `sequential DynamoDB rounds per request: ${profile.rounds.average} (min ${profile.rounds.min}, max ${profile.rounds.max})`,
    );
    const usageBefore = await monthlyUsage(demoIds.acme);
    const storedBefore = await completedRequests(demoIds.acme);
    const jvm = jvmPid(dataDir);
    const jvmBefore = jvm === undefined ? undefined : processCpuMs(jvm);
    const runtimeBefore = process.cpuUsage();
    console.log(
      `POST /v1/email/validate, ${connections} connections, ${seconds} s, warm cache (${os.cpus().length} cores, ` +
        // the setting reaches DynamoDB Local's SQLite: the figures differ a lot (docs/benchmarks.md)
        `LOCAL_FSYNC=${localFsync()})`,
    );
    const report = await runLoadProcess({ url, key: demoKeys.admin, seconds, connections });
    const runtimeCpu = cpuMs(process.cpuUsage(runtimeBefore));
    const jvmAfter = jvm === undefined ? undefined : processCpuMs(jvm);
    // Requests still in flight when autocannon stopped complete (and count) without being reported.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const counted = (await monthlyUsage(demoIds.acme)) - usageBefore;
    const stored = (await completedRequests(demoIds.acme)) - storedBefore;
    console.log(
      `requests: ${report.total}, status codes: ${JSON.stringify(report.statusCodes)}, errors: ${report.errors}, timeouts: ${report.timeouts}`,
    );
    console.log(`latency ms: p50 ${report.p50}, p90 ${report.p90}, p99 ${report.p99}, max ${report.max}`);
    const perRequest = (ms: number | undefined) =>
      ms === undefined ? 'n/a' : (ms / Math.max(1, report.total)).toFixed(2);
    console.log(
      `CPU ms per request: runtime ${perRequest(runtimeCpu)}, DynamoDB Local ${perRequest(
        jvmBefore === undefined || jvmAfter === undefined ? undefined : jvmAfter - jvmBefore,
      )}, load generator ${perRequest(report.cpuMs)} (load ${os.loadavg()[0]!.toFixed(1)})`,
    );
    const exact = counted === stored;
    console.log(
      `usage counted during the load: ${counted}; completed requests stored: ${stored} (${exact ? 'exact' : 'NOT EXACT'}); 200 responses: ${report.statusCodes['200'] ?? 0}`,
    );
    // --no-baseline: a profile of this process (bench/profile.ts) then shows the runtime alone
    const baseline = process.argv.includes('--no-baseline')
      ? { requestsPerSecond: 0, p50: 0 }
      : await measureBaseline(sampleBody, seconds, connections);
    console.log(
      `baseline, a bare node:http server answering the same 200 body in this process: ${Math.round(baseline.requestsPerSecond)} req/s, p50 ${baseline.p50} ms (load ${os.loadavg()[0]!.toFixed(1)})`,
    );
    console.log(
      `p50_ms=${report.p50} p99_ms=${report.p99} requests_per_second=${Math.round(report.requestsPerSecond)} ` +
        `baseline_requests_per_second=${Math.round(baseline.requestsPerSecond)} ` +
        `rounds_avg=${profile.rounds.average} rounds_max=${profile.rounds.max} usage_exact=${exact}`,
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
