// Probe stage benchmark: a bulk job with SMTP_PROBE=true end to end on the local runtime. Addresses are
// spread over domains whose MX hosts are fixture SMTP servers, one per host on its own loopback address
// (127.0.x.y, same port), each answering every command 50 ms after it arrives, rejecting ~10% of
// mailboxes with 5.1.1 and greylisting ~5% once. The servers count sessions and the most open at once;
// they run in a worker thread of their own (probe-fixtures.ts), so the times they note are not skewed
// by the handlers' CPU in this thread.
// The last line reads `probe_addresses_per_second=<n> max_sessions_per_host=<n> rcpt_per_session_avg=<n>`.
//
//   npm run bench:probe                      100,000 addresses over 1,000 domains
//   npm run bench:probe -- --addresses 20000 --domains 200   a smaller run on a loaded machine
//   add --no-cache to run with PROBE_CACHE_DAYS=0 (what the verdict cache's writes cost)
import { readdirSync, readFileSync } from 'node:fs';
import { dynamoDb } from '../functions/clients/dynamodb';
import { sqs } from '../functions/clients/sqs';
import { startTestRuntime } from '../test/helpers/local-runtime';
import { bucketOf, startProbeFixtures } from './probe-fixtures';
import { numberFlag } from './flags';

const ADDRESSES = numberFlag('addresses', 100_000);
const DOMAINS = numberFlag('domains', 1_000);
const DELAY_MS = numberFlag('delay-ms', 50);
/** Greylisting delay of the run (the product default, 300 s, would make the benchmark wait 5 minutes). */
const GREYLIST_DELAY_SECONDS = numberFlag('greylist-delay', 1);
const MAX_SESSIONS_PER_HOST = 2;
/** M of the run: the product default. */
const RCPT_PER_SECOND_PER_HOST = 20;
/** PROBE_CACHE_DAYS of the run: 0 shows what the per-address verdict cache writes cost (a diagnostic). */
const CACHE_DAYS = process.argv.includes('--no-cache') ? '0' : '7';

async function main(): Promise<void> {
  let t0 = performance.now();
  // the servers run in a thread of their own, so a busy moment here never delays when they note a RCPT
  const fixtures = await startProbeFixtures({ domains: DOMAINS, delayMs: DELAY_MS }, () =>
    console.log(`  ${((performance.now() - t0) / 1000).toFixed(1)} s: first probe RCPT`),
  );
  let expectedRejected = 0;
  const lines = ['email'];
  for (let i = 0; i < ADDRESSES; i++) {
    const address = `user${i}@p${i % DOMAINS}.bench.test`;
    if (bucketOf(address) < 10) expectedRejected++;
    lines.push(address);
  }
  const file = Buffer.from(`${lines.join('\n')}\n`);
  console.log(
    `${ADDRESSES} addresses over ${DOMAINS} domains (one fixture MX each, ${DELAY_MS} ms per command), greylist delay ${GREYLIST_DELAY_SECONDS} s, PROBE_CACHE_DAYS=${CACHE_DAYS}`,
  );

  const started = startTestRuntime({
    DNS_SERVERS: fixtures.dnsServers.join(','),
    DNS_TIMEOUT_MS: '2000',
    ALLOW_PRIVATE_MX: 'true',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    SMTP_PROBE: 'true',
    SMTP_PORT: String(fixtures.smtpPort),
    SMTP_TIMEOUT_MS: '5000',
    SMTP_MAX_SESSIONS_PER_HOST: String(MAX_SESSIONS_PER_HOST),
    SMTP_RCPT_PER_SECOND_PER_HOST: String(RCPT_PER_SECOND_PER_HOST),
    PROBE_GREYLIST_DELAY_SECONDS: String(GREYLIST_DELAY_SECONDS),
    PROBE_CACHE_DAYS: CACHE_DAYS,
    RATE_LIMIT_PER_SECOND: '1000',
  });
  const runtime = await started.catch(async (error: unknown) => {
    await fixtures.close();
    throw error;
  });
  const calls = traceCalls();
  try {
    const headers = { 'x-api-key': runtime.keys.admin, 'content-type': 'application/json' };
    const created = (await (
      await fetch(`${runtime.baseUrl}/v1/email/validate-file`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ emailColumn: 0 }),
      })
    ).json()) as { jobId: string; uploadUrl: string };
    t0 = performance.now();
    const cpuBefore = cpuSeconds();
    const put = await fetch(created.uploadUrl, {
      method: 'PUT',
      headers: { 'content-type': 'text/csv' },
      body: file,
    });
    if (put.status !== 200) throw new Error(`PUT ${put.status}`);
    let job: { status: string; percentComplete: number; statistics: Record<string, number> | null };
    let lastPercent = -1;
    // a run too long for the machine still says how fast the probe stage went while it ran
    const ticker = setInterval(() => {
      void fixtures.progress().then(({ probeRcpts, firstRcptAt }) => {
        if (!firstRcptAt) return;
        const s = (Date.now() - firstRcptAt) / 1000;
        console.log(
          `  ${((performance.now() - t0) / 1000).toFixed(0)} s: ${probeRcpts} probe RCPT so far, ${(probeRcpts / s).toFixed(0)} RCPT/s since the first`,
        );
      });
    }, 60_000);
    ticker.unref();
    for (;;) {
      const asked = performance.now();
      const res = await fetch(`${runtime.baseUrl}/v1/email/validate-file/${created.jobId}`, { headers });
      if (res.status !== 200) {
        // a loaded machine can make one status read time out: note it and poll again
        console.log(
          `  status read answered ${res.status} after ${(performance.now() - asked).toFixed(0)} ms`,
        );
        await res.body?.cancel();
        continue;
      }
      job = (await res.json()) as typeof job;
      if (job.percentComplete !== lastPercent) {
        lastPercent = job.percentComplete;
        console.log(
          `  ${((performance.now() - t0) / 1000).toFixed(1)} s: ${job.status} ${job.percentComplete}%`,
        );
      }
      if (job.status !== 'processing' && job.status !== 'awaiting_upload') break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    clearInterval(ticker);
    const seconds = (performance.now() - t0) / 1000;
    const cpuAfter = cpuSeconds();
    if (job.status !== 'completed') throw new Error(`job ended: ${JSON.stringify(job)}`);
    const download = (await (
      await fetch(`${runtime.baseUrl}/v1/email/validate-file/${created.jobId}/download`, { headers })
    ).json()) as { downloadUrl: string };
    const results = (await (await fetch(download.downloadUrl)).text()).trim().split('\n').slice(1);
    const wrong = results.filter((line) => {
      const [address = '', status] = line.split(',');
      return status !== (bucketOf(address) < 10 ? 'block_bounce_risk' : 'safe');
    });
    if (wrong.length > 0)
      console.log(`rows whose status differs from the fixture: ${wrong.slice(0, 5).join(' ')}`);
    const rejected = job.statistics?.block_bounce_risk ?? 0;
    console.log(`statistics: ${JSON.stringify(job.statistics)}`);
    console.log(`5.1.1 rejections found: ${rejected} (fixture rejected ${expectedRejected})`);
    if (rejected !== expectedRejected || wrong.length > 0)
      throw new Error('bulk statuses do not match the fixture mailboxes');
    const { probeRcpts, probeSessions, firstRcptAt, lastRcptAt, rcptTimes, maxOpen } = await fixtures.stats();
    const stageSeconds = (lastRcptAt - firstRcptAt) / 1000;
    console.log(
      `end to end (PUT -> completed): ${seconds.toFixed(1)} s, ${(ADDRESSES / seconds).toFixed(0)} addresses/s`,
    );
    console.log(`probe stage (first to last RCPT): ${stageSeconds.toFixed(1)} s, ${probeRcpts} RCPT`);
    const perAddressUs = (cpu: number) => ((cpu * 1e6) / ADDRESSES).toFixed(0);
    console.log(
      `CPU (PUT -> completed) per address: ${perAddressUs(cpuAfter.node - cpuBefore.node)} µs in this process ` +
        `(handlers, fixture servers), ${perAddressUs(cpuAfter.children - cpuBefore.children)} µs in DynamoDB Local`,
    );
    console.log(`service calls (count, mean ms) during the run, per probe RCPT:`);
    for (const [name, c] of [...calls].sort((a, b) => b[1].n - a[1].n))
      console.log(
        `  ${name}: ${c.n} (${(c.ms / c.n).toFixed(1)} ms), ${(c.n / probeRcpts).toFixed(3)} per RCPT${c.conditionFailed ? `, ${c.conditionFailed} failed their condition` : ''}`,
      );
    if (maxOpen > MAX_SESSIONS_PER_HOST) throw new Error(`a host saw ${maxOpen} sessions at once`);
    const maxRate = Math.max(...rcptTimes.map(mostInOneSecond));
    const maxSliding = Math.max(...rcptTimes.map(mostWithinOneSecond));
    console.log(
      `politeness: at most ${maxOpen} sessions at once and ${maxRate} RCPT in one second at a host (limits: N=${MAX_SESSIONS_PER_HOST}, M=${RCPT_PER_SECOND_PER_HOST}); ${maxSliding} within any 1,000 ms`,
    );
    if (maxRate > RCPT_PER_SECOND_PER_HOST) throw new Error(`a host saw ${maxRate} RCPT in one second`);
    console.log(
      `probe_addresses_per_second=${(ADDRESSES / stageSeconds).toFixed(0)} max_sessions_per_host=${maxOpen} rcpt_per_session_avg=${(probeRcpts / probeSessions).toFixed(1)}`,
    );
  } finally {
    await runtime.stop();
    await fixtures.close();
  }
}

/**
 * CPU seconds so far of this process (the handlers run in it, and the fixture servers) and of its live
 * child processes (DynamoDB Local's JVM), read from /proc; children are 0 where there is no /proc.
 */
function cpuSeconds(): { node: number; children: number } {
  const own = process.cpuUsage();
  let ticks = 0;
  try {
    for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
      let stat: string;
      try {
        stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      } catch {
        continue; // exited meanwhile
      }
      // after the command's name (in parentheses): state, ppid, ..., utime (14th field), stime (15th)
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === process.pid) ticks += Number(fields[11]) + Number(fields[12]);
    }
  } catch {
    // no /proc: children unknown
  }
  // USER_HZ is 100 on Linux
  return { node: (own.user + own.system) / 1e6, children: ticks / 100 };
}

/** The most of `times` (ms) that fall in one calendar second: what SMTP_RCPT_PER_SECOND_PER_HOST bounds. */
function mostInOneSecond(times: number[]): number {
  const counts = new Map<number, number>();
  for (const t of times) counts.set(Math.floor(t / 1000), (counts.get(Math.floor(t / 1000)) ?? 0) + 1);
  return Math.max(0, ...counts.values());
}

/** The most of `times` (ms, any order) that fall within 1,000 ms of each other (for information). */
function mostWithinOneSecond(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i]! - sorted[j]! >= 1000) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

/** The kind of item a single-item call touches, from its key: ` PROBE# VERDICTS`, ` MXHOST# RCPT#`, ... */
function itemKind(input: object): string {
  const { Key, Item } = input as {
    Key?: { pk?: unknown; sk?: unknown };
    Item?: { pk?: unknown; sk?: unknown };
  };
  const key = Key ?? Item;
  if (typeof key?.pk !== 'string' || typeof key.sk !== 'string') return '';
  const prefix = (value: string) => /^[A-Z]+#?/.exec(value)?.[0] ?? '';
  return ` ${prefix(key.pk)} ${prefix(key.sk)}`;
}

/** Counts the handlers' DynamoDB and SQS calls by command, with their mean latency. */
function traceCalls(): Map<string, { n: number; ms: number; conditionFailed: number }> {
  const calls = new Map<string, { n: number; ms: number; conditionFailed: number }>();
  async function timed<T>(name: string, call: () => Promise<T>): Promise<T> {
    const started = performance.now();
    let failed = false;
    try {
      return await call();
    } catch (error) {
      failed = (error as Error).name === 'ConditionalCheckFailedException';
      throw error;
    } finally {
      const c = calls.get(name) ?? { n: 0, ms: 0, conditionFailed: 0 };
      c.n++;
      c.ms += performance.now() - started;
      if (failed) c.conditionFailed++;
      calls.set(name, c);
    }
  }
  const options = { step: 'initialize', name: 'benchTrace' } as const;
  dynamoDb().middlewareStack.add(
    (next, context) => (args) =>
      timed(`dynamodb ${context.commandName}${itemKind(args.input)}`, () => next(args)),
    options,
  );
  sqs().middlewareStack.add(
    (next, context) => (args) => timed(`sqs ${context.commandName}`, () => next(args)),
    options,
  );
  return calls;
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
