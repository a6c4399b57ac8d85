// The worker thread of bench/probe-fixtures.ts: the fixture DNS and SMTP servers of bench/probe.ts and
// what they saw, answered to the bench's thread on request.
import { parentPort, workerData } from 'node:worker_threads';
import { startFixtureDns, type Zones } from '../test/unit/validation/fixtures/dns-server';
import { replies, startBatchSmtp, type BatchSmtp } from '../test/unit/validation/fixtures/batch-smtp';
import { closedPort } from '../test/unit/validation/fixtures/harness';
import {
  bucketOf,
  hostAddress,
  type FromFixtureThread,
  type ProbeFixtureOptions,
  type ToFixtureThread,
} from './probe-fixtures';

const post = (message: FromFixtureThread) => parentPort!.postMessage(message);

async function serve(options: ProbeFixtureOptions): Promise<void> {
  const zones: Zones = {};
  for (let n = 0; n < options.domains; n++) {
    zones[`p${n}.bench.test`] = { mx: [{ exchange: `mx${n}.bench.test`, priority: 10 }] };
    zones[`mx${n}.bench.test`] = { a: [hostAddress(n)] };
  }
  const dns = await startFixtureDns(zones);
  const port = await closedPort();
  const probeSessions = new Set<string>();
  let probeRcpts = 0;
  let firstRcptAt = 0;
  let lastRcptAt = 0;
  const rcptTimes: number[][] = Array.from({ length: options.domains }, () => []);
  const servers: BatchSmtp[] = [];
  for (let n = 0; n < options.domains; n++) {
    servers.push(
      await startBatchSmtp({
        host: hostAddress(n),
        port,
        delayMs: options.delayMs,
        rcpt: (address, ctx) => {
          const local = address.slice(0, address.lastIndexOf('@'));
          if (local.startsWith('mailvet-probe-')) return replies.unknown; // the domain's catch-all test
          probeSessions.add(`${n}:${ctx.session}`);
          probeRcpts++;
          const now = Date.now();
          rcptTimes[n]!.push(now);
          if (!firstRcptAt) post({ type: 'firstRcpt', at: now });
          firstRcptAt ||= now;
          lastRcptAt = now;
          const b = bucketOf(address);
          if (b < 10) return replies.unknown;
          if (b < 15 && ctx.seenBefore === 0) return replies.greylisted;
          return replies.ok;
        },
      }),
    );
  }
  parentPort!.on('message', (message: ToFixtureThread) => {
    if (message.type === 'progress') post({ type: 'progress', probeRcpts, firstRcptAt });
    else if (message.type === 'stats')
      post({
        type: 'stats',
        stats: {
          probeRcpts,
          probeSessions: probeSessions.size,
          firstRcptAt,
          lastRcptAt,
          rcptTimes,
          maxOpen: Math.max(...servers.map((s) => s.stats.maxOpen)),
        },
      });
    else if (message.type === 'close')
      void Promise.all([...servers.map((s) => s.close()), dns.close()]).then(() => parentPort!.close());
  });
  post({ type: 'ready', dnsServers: dns.servers, smtpPort: port });
}

serve(workerData as ProbeFixtureOptions).catch((error: unknown) => {
  post({ type: 'error', message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
});
