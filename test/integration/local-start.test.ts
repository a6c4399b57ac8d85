// `npm start` as a process: it prints the base URL and the demo keys, keeps data across restarts,
// stops every child (the JVM included) on SIGTERM, and explains a port already in use.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freeRuntimePort } from '../helpers/runtime-port';
import { fixtureCanaryDomain, startFixtureDns } from '../unit/validation/fixtures/dns-server';

// Every wait below is for an event (the banner, an exit, children gone), bounded only by this: a start
// takes seconds on an idle machine and over a minute on a saturated one.
jest.setTimeout(600_000);

const root = path.resolve(__dirname, '../..');
let dataDir: string;
const started: ChildProcessWithoutNullStreams[] = [];

beforeAll(() => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'mailvet-start-'));
});
afterEach(() => {
  // A failed assertion must not leave a runtime (and its JVM) behind.
  for (const child of started.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function start(
  port: number,
  env: Record<string, string> = {},
): {
  child: ChildProcessWithoutNullStreams;
  output: () => string;
  ready: Promise<string>;
} {
  // as `npm start` runs it (package.json): node itself gets the signals, no tsx process relays them
  const child = spawn(process.execPath, ['--import', 'tsx', 'local/start.ts'], {
    cwd: root,
    env: { ...process.env, PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...env },
  });
  started.push(child);
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  // Ready when the banner is out; failed when the process exits first. No timer of its own: how long a
  // start takes depends on the machine's load, not on the code under test (jest's timeout bounds it).
  const ready = new Promise<string>((resolve, reject) => {
    const check = () => {
      if (output.includes('Ctrl-C')) resolve(output);
    };
    child.stdout.on('data', check);
    child.on('exit', (code) => reject(new Error(`exited with ${code}: ${output}`)));
  });
  ready.catch(() => undefined);
  return { child, output: () => output, ready };
}

function childPids(pid: number): number[] {
  try {
    return execFileSync('pgrep', ['-P', String(pid)])
      .toString()
      .trim()
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

function descendants(pid: number): number[] {
  const direct = childPids(pid);
  return direct.flatMap((child) => [child, ...descendants(child)]);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function exited(child: ChildProcessWithoutNullStreams): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

describe('npm start', () => {
  it('serves the API with the demo keys, keeps data across a restart, and stops every child on SIGTERM', async () => {
    const port = await freeRuntimePort();
    const first = start(port);
    const banner = await first.ready;
    expect(banner).toContain(`http://localhost:${port}`);
    expect(banner).toContain('demo-admin-key');
    expect(banner).toContain('demo workspace seeded');
    expect(banner).toContain(`MAILVET_URL=http://localhost:${port} npx mailvet validate-file`);

    const withKey = await fetch(`http://127.0.0.1:${port}/v1/email/validate/nope`, {
      headers: { 'x-api-key': 'demo-admin-key' },
    });
    expect([404, 501]).toContain(withKey.status);

    const family = descendants(first.child.pid!);
    expect(family.length).toBeGreaterThan(0);
    first.child.kill('SIGTERM');
    expect(await exited(first.child)).toBe(0);
    // Grandchildren (the JVM, tsx's esbuild service) may take a moment after the parent exits: wait for
    // them to go (a minute at most, for a saturated machine), then assert none is left.
    for (let waited = 0; waited < 60_000 && family.some(alive); waited += 100)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(family.filter(alive)).toEqual([]);

    // Same data directory: the demo keys still work and nothing is seeded again.
    const second = start(port);
    const again = await second.ready;
    expect(again).not.toContain('demo workspace seeded');
    const stillThere = await fetch(`http://127.0.0.1:${port}/v1/email/validate/nope`, {
      headers: { 'x-api-key': 'demo-other-key' },
    });
    expect(stillThere.status).not.toBe(403);
    second.child.kill('SIGINT');
    expect(await exited(second.child)).toBe(0);
  });

  it('starts again on the same PORT after the runtime was killed with SIGKILL', async () => {
    const port = await freeRuntimePort();
    const own = { DATA_DIR: path.join(dataDir, 'killed') };
    const first = start(port, own);
    await first.ready;
    // Every node process of the runtime dies at once; its JVM is left to notice (or to the next start).
    for (const pid of [first.child.pid!, ...descendants(first.child.pid!)]) {
      try {
        if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('DynamoDBLocal'))
          process.kill(pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
    await exited(first.child);

    // The same ports again: DynamoDB Local's (PORT + 2) is free by the time they are checked.
    const second = start(port, own);
    expect(await second.ready).toContain(`http://localhost:${port}`);
    const answer = await fetch(`http://127.0.0.1:${port}/v1/users`, {
      headers: { 'x-api-key': 'demo-admin-key' },
    });
    expect(answer.status).toBe(200);
    second.child.kill('SIGTERM');
    expect(await exited(second.child)).toBe(0);
  });

  it('explains a port that is already in use instead of printing a stack trace', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as net.AddressInfo).port;
    const fresh = path.join(dataDir, 'never-created');
    const run = start(port, { DATA_DIR: fresh });
    const code = await exited(run.child);
    blocker.close();
    expect(code).toBe(2);
    // It names what holds the port: here, this test's own process.
    expect(run.output()).toContain(
      `mailvet: port ${port} (the API) is already in use by pid ${process.pid} (`,
    );
    expect(run.output()).toContain('PORT=');
    expect(run.output()).not.toMatch(/\n\s+at /);
    // Refused before any work: no data directory, so no JVM and no emulator was started.
    expect(existsSync(fresh)).toBe(false);
  });

  it('names the local S3 and the setting that moves it when PORT + 1 is taken', async () => {
    const port = await freeRuntimePort();
    const taken = port + 1;
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(taken, '127.0.0.1', resolve));
    const run = start(port, { DATA_DIR: path.join(dataDir, 'never-created-s3') });
    const code = await exited(run.child);
    blocker.close();
    expect(code).toBe(2);
    expect(run.output()).toContain(`port ${taken} (the local S3, PORT + 1) is already in use`);
    expect(run.output()).toContain('S3_PORT');
    expect(run.output().trim().split('\n')).toHaveLength(1);
  });

  it('says in its banner when the resolver answers none of the canary domains, and not otherwise', async () => {
    const broken = await startFixtureDns({}, { withoutCanary: true });
    const working = await startFixtureDns({});
    try {
      const port = await freeRuntimePort();
      const env = { DNS_CANARY_DOMAINS: `${fixtureCanaryDomain},gmail.com`, DNS_TIMEOUT_MS: '2000' };
      const first = start(port, { ...env, DNS_SERVERS: broken.servers.join(',') });
      const banner = await first.ready;
      expect(banner).toContain(`DNS:       the resolver answers none of ${fixtureCanaryDomain}, gmail.com`);
      expect(banner).toContain('some_risk / dns_unavailable');
      first.child.kill('SIGTERM');
      expect(await exited(first.child)).toBe(0);

      const second = start(port, { ...env, DNS_SERVERS: working.servers.join(',') });
      expect(await second.ready).not.toContain('DNS:');
      second.child.kill('SIGTERM');
      expect(await exited(second.child)).toBe(0);
    } finally {
      await broken.close();
      await working.close();
    }
  });
});
