// A newcomer's first ten minutes, as a test: a copy of the checkout, the default port already taken,
// `npm start` on another PORT, then every `sh` block of the README run as written (the CLI quick start,
// curl, the key tools) with only MAILVET_URL set, as the README tells. Blocks fenced `shell` are the
// ones that start things (`npm ci && npm start`, `PORT=4000 npm start`) and are not run here.
import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { portIsFree } from '../../local/ports';
import { freeRuntimePort } from '../helpers/runtime-port';

// A start takes seconds on an idle machine and minutes on a saturated one; every wait below is for an
// event, bounded only by this.
jest.setTimeout(900_000);

const root = path.resolve(__dirname, '../..');
const defaultPort = 3000;

/** The README's `sh` blocks, in order. */
function readmeShellBlocks(readme: string): string[] {
  return [...readme.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
}

let checkout: string;
let blocker: net.Server | undefined;
const started: ChildProcessWithoutNullStreams[] = [];

/** The checkout as a fresh clone has it: tracked and new files, no data, no results; node_modules shared. */
function copyCheckout(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mailvet-readme-'));
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], { cwd: root })
    .toString()
    .split('\0')
    .filter((file) => file !== '' && existsSync(path.join(root, file)));
  for (const file of files) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    cpSync(path.join(root, file), path.join(dir, file));
  }
  symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'));
  // A repository of its own, so the test can ask git whether the examples left the checkout clean.
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'pipe' });
  git('init', '-q');
  git('-c', 'user.name=t', '-c', 'user.email=t@t', 'add', '-A');
  git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'copy');
  return dir;
}

/** Runs `npm start` in the copy; resolves with everything it printed, once it printed it all or exited. */
function npmStart(env: Record<string, string>): {
  child: ChildProcessWithoutNullStreams;
  ready: Promise<string>;
  exit: Promise<{ code: number | null; output: string }>;
} {
  // Its own process group: npm, tsx and the JVM are stopped together.
  const child = spawn('npm', ['start', '--silent'], {
    cwd: checkout,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    detached: true,
  });
  started.push(child);
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exit = new Promise<{ code: number | null; output: string }>((resolve) =>
    child.on('exit', (code) => resolve({ code, output })),
  );
  const ready = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', () => {
      if (output.includes('Ctrl-C')) resolve(output);
    });
    void exit.then(({ code }) => reject(new Error(`npm start exited with ${code}: ${output}`)));
  });
  ready.catch(() => undefined);
  return { child, ready, exit };
}

function runBlock(
  script: string,
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    // -e: a command that fails stops the block, as it would stop a reader.
    const child = spawn('bash', ['-e', '-c', script], { cwd: checkout, env: { ...process.env, ...env } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (code) => resolve({ code, output }));
  });
}

beforeAll(async () => {
  checkout = copyCheckout();
  // The default port taken, as on a machine already running something on 3000 (if something already
  // holds it, that serves as well).
  if (await portIsFree(defaultPort, '127.0.0.1')) {
    blocker = net.createServer();
    await new Promise<void>((resolve) => blocker!.listen(defaultPort, '127.0.0.1', resolve));
  }
});

afterAll(async () => {
  const running = started.filter((child) => child.exitCode === null);
  const exits = running.map((child) => new Promise((resolve) => child.once('exit', resolve)));
  for (const child of running) process.kill(-child.pid!, 'SIGTERM');
  await Promise.all(exits);
  blocker?.close();
  rmSync(checkout, { recursive: true, force: true });
});

describe('the README, followed from a fresh checkout', () => {
  it('runs every shell example against npm start on another PORT, and leaves the checkout clean', async () => {
    // With 3000 taken, plain `npm start` says so at once and exits 2.
    const refused = await npmStart({}).exit;
    expect(refused.code).toBe(2);
    expect(refused.output).toContain(`port ${defaultPort} (the API) is already in use`);
    expect(refused.output).toContain('PORT=');
    expect(existsSync(path.join(checkout, '.mailvet'))).toBe(false);

    const port = await freeRuntimePort();
    const runtime = npmStart({ PORT: String(port) });
    const banner = await runtime.ready;
    const url = `http://localhost:${port}`;
    expect(banner).toContain(`MAILVET_URL=${url} npx mailvet validate-file docs/examples/leads.csv`);
    // The tools do not repeat the SDK's notice about Node versions.
    expect(banner).not.toContain('NodeVersionSupportWarning');

    const blocks = readmeShellBlocks(readFileSync(path.join(checkout, 'README.md'), 'utf8'));
    expect(blocks.length).toBeGreaterThanOrEqual(3);
    const outputs: string[] = [];
    for (const block of blocks) {
      const run = await runBlock(block, { MAILVET_URL: url });
      if (run.code !== 0) throw new Error(`README example exited ${run.code}:\n${block}\n---\n${run.output}`);
      expect(run.output).not.toContain('NodeVersionSupportWarning');
      expect(run.output).not.toContain('command not found');
      outputs.push(run.output);
    }
    const all = outputs.join('\n');

    // The CLI quick start: a completed job of the sample's six rows, results beside the input.
    expect(all).toMatch(/completed, 6 of 6 emails/);
    const results = path.join(checkout, 'docs/examples/leads_processed_by_mailvet.csv');
    expect(readFileSync(results, 'utf8').split('\n')[0]).toBe('name,email,company,mailvet_status');
    // curl: the three key answers, the verdict, and the bulk job's downloaded results file.
    expect(all).toContain('{"error":"Missing API key"}');
    expect(all).toContain('{"error":"Invalid API key"}');
    expect(all).toContain('"users":[');
    expect(all).toContain('"email":"jane.doe@gmail.com"');
    expect(all).toContain('name,email,company,mailvet_status');
    expect(all).toContain('mv_live_');
    // Nothing the examples wrote shows up in git status.
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: checkout }).toString()).toBe('');
  });
});
