// The local runtime both sync benches run against: the fixture DNS world, no per-company rate limit (the
// benches measure the endpoint, not the limit; docs/api.md gives the default), warnings only.
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startLocalRuntime, type LocalRuntime, type LocalRuntimeOptions } from '../local/runtime';
import { fixtureCanaryDomain, startFixtureDns } from '../test/unit/validation/fixtures/dns-server';
import { ZONES } from '../test/unit/validation/fixtures/world';

export interface SyncBenchRuntime {
  runtime: LocalRuntime;
  dns: Awaited<ReturnType<typeof startFixtureDns>>;
  dataDir: string;
}

export async function startSyncBenchRuntime(
  name: string,
  options: Pick<LocalRuntimeOptions, 'workers' | 'recordAwsCalls'> = {},
): Promise<SyncBenchRuntime> {
  const dns = await startFixtureDns(ZONES);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `mailvet-bench-${name}-`));
  const runtime = await startLocalRuntime({
    port: 0,
    dataDir,
    ...options,
    env: {
      DNS_SERVERS: dns.servers.join(','),
      DNS_CANARY_DOMAINS: fixtureCanaryDomain,
      ALLOW_PRIVATE_MX: 'true',
      RATE_LIMIT_PER_SECOND: '1000000',
      LOG_LEVEL: 'warn',
    },
  });
  return { runtime, dns, dataDir };
}
