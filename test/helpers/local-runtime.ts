// Starts a whole local runtime (emulators + API + pollers) in a fresh temporary data directory, recording
// the functions' AWS calls, which stop() checks against their IAM policies (iam-check.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { demoKeys, demoIds } from '../../local/demo/accounts';
import {
  localWorkers,
  startLocalRuntime,
  type LocalRuntime,
  type LocalRuntimeOptions,
} from '../../local/runtime';
import { checkRecordedCalls } from './iam-check';
import { fixtureCanaryDomain, type FixtureDns } from '../unit/validation/fixtures/dns-server';

export interface TestRuntime {
  baseUrl: string;
  keys: typeof demoKeys;
  ids: typeof demoIds;
  runtime: LocalRuntime;
  dataDir: string;
  stop(): Promise<void>;
}

export interface TestRuntimeOptions {
  /**
   * Worker threads for the queue consumers and the scan. Default: LOCAL_WORKERS when set, else 0 (on
   * the test's thread, where a suite's spies on SDK clients and its changes to process.env reach them).
   */
  workers?: number;
  /** Fixture schedules (default: the wiring's) and the fixture functions they invoke. */
  schedules?: LocalRuntimeOptions['schedules'];
  extraFunctions?: LocalRuntimeOptions['extraFunctions'];
}

export async function startTestRuntime(
  env: Record<string, string> = {},
  options: TestRuntimeOptions = {},
): Promise<TestRuntime> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'mailvet-test-'));
  // No fdatasync: these runtimes never outlive a power loss, and the suite runs on a shared, busy disk.
  // The crash suite (test/crash) runs `npm start` with the default (on).
  const runtime = await startLocalRuntime({
    port: 0,
    dataDir,
    fsync: false,
    // The canary check is off unless a test asks for it: suites that use the system's resolver (NXDOMAIN
    // for every name on a machine without DNS) expect `.test` domains to read as non-existent, and
    // fixtureDnsSettings turns it on with a canary its fixture server serves.
    // Its own sealed-secrets key, whatever test/helpers/env.ts gave the unit tests.
    env: {
      LOG_LEVEL: 'warn',
      DNS_CANARY_DOMAINS: '',
      SECRETS_LOCAL_KEY_FILE: path.join(dataDir, 'secrets.key'),
      ...env,
    },
    recordAwsCalls: true,
    workers: options.workers ?? (process.env.LOCAL_WORKERS ? localWorkers() : 0),
    ...(options.schedules ? { schedules: options.schedules } : {}),
    ...(options.extraFunctions ? { extraFunctions: options.extraFunctions } : {}),
  });
  return {
    baseUrl: runtime.baseUrl,
    keys: demoKeys,
    ids: demoIds,
    runtime,
    dataDir,
    // Fails the file's afterAll when a function made a call its deployed role would refuse.
    stop: async () => {
      await runtime.stop();
      rmSync(dataDir, { recursive: true, force: true });
      checkRecordedCalls(runtime.awsCalls);
    },
  };
}

/**
 * A test runtime for the whole file (or describe block): started in beforeAll, stopped in afterAll.
 * Returns a getter, to call inside tests (the runtime exists only once beforeAll has run).
 */
export function useTestRuntime(
  env: Record<string, string> = {},
  options: TestRuntimeOptions = {},
): () => TestRuntime {
  let local: TestRuntime | undefined;
  beforeAll(async () => {
    local = await startTestRuntime(env, options);
  });
  afterAll(() => local?.stop());
  return () => {
    if (!local) throw new Error('the test runtime is not started: call it inside a test');
    return local;
  };
}

/**
 * Settings that point the validator at a fixture DNS server on 127.0.0.1 whose MX hosts are loopback,
 * with the DNS canary check on the name every fixture server answers (fixtureCanaryDomain).
 */
export function fixtureDnsSettings(dns: { servers: string[] }, timeoutMs = 500): Record<string, string> {
  return {
    DNS_SERVERS: dns.servers.join(','),
    DNS_TIMEOUT_MS: String(timeoutMs),
    ALLOW_PRIVATE_MX: 'true',
    DNS_CANARY_DOMAINS: fixtureCanaryDomain,
  };
}

/**
 * Settings that probe mailboxes at a fixture SMTP server on 127.0.0.1 (`smtpTimeoutMs` per command),
 * found through a fixture DNS server: timeouts generous enough that a loaded machine does not turn a slow
 * answer into a timeout verdict, no probe cache (every run really probes), and a rate limit tests do not meet.
 */
export function fixtureProbeSettings(
  dns: { servers: string[] },
  smtp: { port: number },
  smtpTimeoutMs = 2500,
): Record<string, string> {
  return {
    ...fixtureDnsSettings(dns, 3000),
    RATE_LIMIT_PER_SECOND: '1000',
    SMTP_PROBE: 'true',
    SMTP_PORT: String(smtp.port),
    SMTP_TIMEOUT_MS: String(smtpTimeoutMs),
    PROBE_CACHE_DAYS: '0',
  };
}

export interface RuntimeWithDns {
  dns: FixtureDns;
  local: TestRuntime;
}

/**
 * Registers the file's beforeAll/afterAll: a fixture DNS server from `startDns`, then a local runtime
 * with `settings(dns)`, both stopped after the file. Returns the object they fill: read its fields inside
 * tests, not at module scope.
 */
export function useRuntimeWithDns(
  startDns: () => Promise<FixtureDns>,
  settings: (dns: FixtureDns) => Record<string, string>,
): RuntimeWithDns {
  const world = {} as RuntimeWithDns;
  beforeAll(async () => {
    world.dns = await startDns();
    world.local = await startTestRuntime(settings(world.dns));
  });
  afterAll(async () => {
    await world.local?.stop();
    await world.dns?.close();
  });
  return world;
}
