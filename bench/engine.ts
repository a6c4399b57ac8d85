// Bulk hot path benchmark: classify 1M generated addresses against a warm domain cache, on one core.
// Prints addresses per second; the last line reads addresses_per_second=<n>.
import { STATUSES, ValidationEngine, type DnsClient } from '../functions/domain/validation';

const TOTAL = 1_000_000;
const DOMAINS = 2_000;

/**
 * The status counts of the generated addresses (fixed seed): a faster hot path must give every address
 * the verdict it had, so the benchmark fails when these change.
 */
const EXPECTED_COUNTS: Readonly<Record<string, number>> = {
  safe: 861_098,
  block_bounce_risk: 82_348,
  some_risk: 27_326,
  dead_email: 0,
  do_not_mail_abuse: 29_228,
};

// Every domain "has" one public MX: the benchmark measures classification, not DNS.
const fakeDns: DnsClient = {
  resolveMx: async (d) => [{ exchange: `mx1.${d}`, priority: 10 }],
  resolve4: async () => ['93.184.216.34'],
  resolve6: async () => [],
};

function generate(n: number): string[] {
  const firsts = [
    'john',
    'Mary',
    'li',
    'o.connor',
    'info',
    'sales',
    'abuse',
    'x_y',
    'anna-maria',
    'bob+news',
  ];
  const out: string[] = [];
  let seed = 42;
  const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff);
  for (let i = 0; i < n; i++) {
    const r = rnd();
    const local = `${firsts[r % firsts.length]}${r % 7 === 0 ? '' : (r >> 8) % 10000}`;
    const domain = `company${(r >> 4) % DOMAINS}.${r % 3 === 0 ? 'co.uk' : 'com'}`;
    const kind = r % 50;
    // a realistic share of junk: missing @, double dots, blanks, upper-case domains, spaces
    if (kind === 0) out.push(`${local}${domain}`);
    else if (kind === 1) out.push(`${local}..x@${domain}`);
    else if (kind === 2) out.push('');
    else if (kind === 3) out.push(`${local}@${domain.toUpperCase()}`);
    else if (kind === 4) out.push(` ${local}@${domain} `);
    else out.push(`${local}@${domain}`);
  }
  return out;
}

async function main(): Promise<void> {
  const engine = new ValidationEngine({ dnsClient: fakeDns, maxConcurrentLookups: 64 });
  const emails = generate(TOTAL);
  const t0 = process.hrtime.bigint();
  const batch = await engine.prepare(emails);
  const prepMs = Number(process.hrtime.bigint() - t0) / 1e6;
  console.log(`prepared ${DOMAINS * 2} domains for ${TOTAL} addresses in ${prepMs.toFixed(0)} ms (fake DNS)`);

  const counts: Record<string, number> = Object.fromEntries(STATUSES.map((s) => [s, 0]));
  for (let i = 0; i < 200_000; i++) batch.statusOf(emails[i] ?? ''); // warm-up (JIT)
  let best = 0;
  for (let run = 1; run <= 3; run++) {
    for (const k of Object.keys(counts)) counts[k] = 0;
    const cpuStart = process.cpuUsage();
    const start = process.hrtime.bigint();
    for (let i = 0; i < TOTAL; i++) {
      const s = batch.statusOf(emails[i] ?? '');
      counts[s]!++;
    }
    const secs = Number(process.hrtime.bigint() - start) / 1e9;
    const cpu = process.cpuUsage(cpuStart);
    const cpuSecs = (cpu.user + cpu.system) / 1e6;
    const rate = Math.round(TOTAL / secs);
    best = Math.max(best, rate);
    console.log(
      `run ${run}: ${TOTAL} addresses in ${(secs * 1000).toFixed(0)} ms wall, ${(cpuSecs * 1000).toFixed(0)} ms CPU = ` +
        `${rate.toLocaleString('en-US')} addresses/s wall, ${Math.round(TOTAL / cpuSecs).toLocaleString('en-US')}/s per CPU second`,
    );
  }
  console.log(`statuses: ${JSON.stringify(counts)}`);
  if (STATUSES.some((s) => counts[s] !== EXPECTED_COUNTS[s])) {
    console.error(`status counts changed: expected ${JSON.stringify(EXPECTED_COUNTS)}`);
    process.exitCode = 1;
  }
  console.log(`addresses_per_second=${best}`);
}

void main();
