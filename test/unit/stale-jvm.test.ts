// The stale DynamoDB Local JVM a killed runtime leaves behind: ended at the next start, and waited for
// only until it is dead (a zombie nobody reaps counts as dead: its ports are released).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isDead, killStaleJvm } from '../../local/stale-jvm';

const dir = mkdtempSync(path.join(os.tmpdir(), 'mailvet-stale-jvm-'));
const pidFile = path.join(dir, 'jvm.pid');
const children: ChildProcess[] = [];

afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** Starts `script` in bash and resolves with the first line it prints (a pid). */
function startPrinting(script: string): Promise<number> {
  const child = spawn('bash', ['-c', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolve(Number(out.split('\n')[0]));
    });
    child.on('error', reject);
  });
}

const stateOf = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.charAt(stat.lastIndexOf(')') + 2);
};

describe('killStaleJvm (local/stale-jvm.ts)', () => {
  it('ends a process named DynamoDB Local and returns once it is dead, even when nobody reaps it', async () => {
    // The "JVM" is a child of a process that never waits for it (sleep): killed, it stays a zombie.
    const pid = await startPrinting('(exec -a DynamoDBLocal sleep 300) & echo $!; exec sleep 300');
    writeFileSync(pidFile, String(pid));
    expect(isDead(pid)).toBe(false);
    // A wait longer than the test's timeout: only seeing the zombie as dead lets this return in time.
    await killStaleJvm(pidFile, 60_000);
    expect(existsSync(`/proc/${pid}`)).toBe(true);
    expect(stateOf(pid)).toBe('Z');
    expect(isDead(pid)).toBe(true);
    expect(existsSync(pidFile)).toBe(false);
  });

  it('leaves a process that is not DynamoDB Local alone (the pid was reused)', async () => {
    const pid = await startPrinting('echo $$; exec sleep 300');
    writeFileSync(pidFile, String(pid));
    await killStaleJvm(pidFile, 60_000);
    expect(isDead(pid)).toBe(false);
    expect(existsSync(pidFile)).toBe(false);
  });

  it('counts a pid with no process as dead, and a missing or unreadable pid file as nothing to do', async () => {
    expect(isDead(2 ** 22 + 12345)).toBe(true);
    await expect(killStaleJvm(path.join(dir, 'none.pid'))).resolves.toBeUndefined();
    writeFileSync(pidFile, 'not a pid');
    await expect(killStaleJvm(pidFile)).resolves.toBeUndefined();
    expect(existsSync(pidFile)).toBe(false);
  });

  it('counts a zombie as alive while any of its threads is still exiting (they hold its sockets)', () => {
    // A /proc of one process, as Linux shows a JVM whose main thread is a zombie before its other
    // threads are gone: the listening socket is released only with the last thread.
    const proc = path.join(dir, 'proc');
    const pid = 4242;
    mkdirSync(path.join(proc, String(pid), 'task', String(pid)), { recursive: true });
    mkdirSync(path.join(proc, String(pid), 'task', String(pid + 7)));
    writeFileSync(path.join(proc, String(pid), 'stat'), `${pid} (java) Z 1 4242 4242 0 -1`);
    expect(isDead(pid, proc)).toBe(false);
    rmSync(path.join(proc, String(pid), 'task', String(pid + 7)), { recursive: true });
    expect(isDead(pid, proc)).toBe(true);
    writeFileSync(path.join(proc, String(pid), 'stat'), `${pid} (java) S 1 4242 4242 0 -1`);
    expect(isDead(pid, proc)).toBe(false);
  });
});
