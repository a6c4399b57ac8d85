// `npx tsx bench/estimate-dns.ts [runs]`: the floor under `bench:bulk -- --estimate`. Resolves the
// domains of an estimate's sample (1,000 rows of the 100,000-row file, drawn as the scan draws them) and
// then those of the whole file, each with a fresh engine against the fixture DNS server in this process
// (as in the bench, where the server shares the runtime's thread), and prints the wall and CPU time of
// each and their ratio: an estimate cannot take less than its sample's lookups.
import os from 'node:os';
import { ValidationEngine } from '../functions/domain/validation';
import { Reservoir } from '../functions/domain/bulk/estimate/reservoir';
import { estimateSampleRows } from '../functions/domain/bulk/limits';
import { seededRandom } from '../functions/domain/seeded-random';
import { startFixtureDns } from '../test/unit/validation/fixtures/dns-server';
import { dnsZones, generateRecords } from './bulk-input';

async function resolve(servers: string[], emails: string[]): Promise<{ ms: number; cpuMs: number }> {
  const engine = new ValidationEngine({ dnsServers: servers, allowPrivateMx: true });
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await engine.prepare(emails);
  const cpu = process.cpuUsage(cpu0);
  return { ms: performance.now() - t0, cpuMs: (cpu.user + cpu.system) / 1000 };
}

async function main(): Promise<void> {
  const runs = Number(process.argv[2] ?? 3);
  const emails: string[] = [];
  generateRecords((_, email) => emails.push(email), 100_000);
  // the distinct domains of the cells that hold an "@" (a cell without one needs no lookup)
  const domains = (list: string[]) =>
    new Set(list.filter((e) => e.includes('@')).map((e) => e.slice(e.lastIndexOf('@') + 1))).size;
  const dns = await startFixtureDns(dnsZones());
  try {
    for (let run = 1; run <= runs; run++) {
      const reservoir = new Reservoir<string>(estimateSampleRows, seededRandom(run));
      for (const email of emails) {
        const slot = reservoir.offer();
        if (slot >= 0) reservoir.put(slot, email);
      }
      const sample = reservoir.items();
      const load = os.loadavg()[0]!.toFixed(2);
      const part = await resolve(dns.servers, sample);
      const whole = await resolve(dns.servers, emails);
      console.log(
        `run ${run} (load ${load}): sample ${sample.length} rows, ${domains(sample)} domains: ` +
          `${part.ms.toFixed(0)} ms, ${part.cpuMs.toFixed(0)} ms CPU; file ${emails.length} rows, ` +
          `${domains(emails)} domains: ${whole.ms.toFixed(0)} ms, ${whole.cpuMs.toFixed(0)} ms CPU; ` +
          `dns_cpu_ratio=${(part.cpuMs / whole.cpuMs).toFixed(3)}`,
      );
    }
  } finally {
    await dns.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
