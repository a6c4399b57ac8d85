// How long a test runtime (the one every bench and integration test starts) takes to start and to stop,
// and the CPU this process spends on each: the stop includes the recorded-call check against the
// functions' IAM policies (test/helpers/iam-check.ts). DynamoDB Local's JVM is a child, not counted.
//   npx tsx bench/runtime-stop.ts [--rounds N]
import { startTestRuntime } from '../test/helpers/local-runtime';

const i = process.argv.indexOf('--rounds');
const rounds = i >= 0 ? Number(process.argv[i + 1]) : 2;
if (!Number.isInteger(rounds) || rounds < 1) throw new Error('--rounds needs a whole number of at least 1');

/** Wall ms and CPU ms of this process while `work` runs. */
async function measure(work: () => Promise<unknown>): Promise<{ wallMs: number; cpuMs: number }> {
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  await work();
  const used = process.cpuUsage(cpu);
  return { wallMs: performance.now() - t0, cpuMs: (used.user + used.system) / 1000 };
}

async function main(): Promise<void> {
  for (let round = 1; round <= rounds; round++) {
    let runtime: Awaited<ReturnType<typeof startTestRuntime>> | undefined;
    const start = await measure(async () => {
      runtime = await startTestRuntime();
    });
    // one request, so the stop has recorded calls to check
    const res = await fetch(`${runtime!.baseUrl}/v1/email/validate`, {
      method: 'POST',
      headers: { 'x-api-key': runtime!.keys.admin, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'someone@example.test' }),
    });
    if (res.status !== 200) throw new Error(`validate: ${res.status} ${await res.text()}`);
    const stop = await measure(() => runtime!.stop());
    const f = (n: number) => n.toFixed(0);
    console.log(
      `round ${round}: start ${f(start.wallMs)} ms (CPU ${f(start.cpuMs)} ms), stop ${f(stop.wallMs)} ms (CPU ${f(stop.cpuMs)} ms)`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
