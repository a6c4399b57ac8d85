// How many domain lookups to keep in flight: a chunk's domains (the bench's first 55,000 rows, ~1,800
// domains) prepared on a fresh engine against the fixture DNS server in a thread of its own, while the
// event loop is blocked 40 ms of every 50 (a validator's other invocations reading their rows), once per
// concurrency given. Wall time: the load of the machine moves it; compare the figures of one run.
//   npx tsx bench/dns-window.ts [concurrency ...]     (default: 32 128)
import { ValidationEngine } from '../functions/domain/validation';
import { startFixtureDnsThread } from '../test/unit/validation/fixtures/dns-server-thread';
import { dnsZones, generateRecords } from './bulk-input';

async function main(): Promise<void> {
  const windows = process.argv.length > 2 ? process.argv.slice(2).map(Number) : [32, 128];
  const emails: string[] = [];
  generateRecords((_, email) => emails.push(email), 55_000);
  const dns = await startFixtureDnsThread(dnsZones(), { cacheAnswers: true });
  try {
    // modules loaded and the code warm, so the figures below are DNS and the blocked loop
    await new ValidationEngine({ dnsServers: dns.servers, allowPrivateMx: true }).prepare(emails);
    for (const window of windows) {
      const engine = new ValidationEngine({
        dnsServers: dns.servers,
        allowPrivateMx: true,
        maxConcurrentLookups: window,
      });
      const busy = setInterval(() => {
        const end = performance.now() + 40;
        while (performance.now() < end);
      }, 10);
      const started = performance.now();
      await engine.prepare(emails);
      clearInterval(busy);
      console.log(`${window} in flight: ${(performance.now() - started).toFixed(0)} ms`);
    }
  } finally {
    await dns.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
