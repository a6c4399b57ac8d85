// The stale DynamoDB Local JVM a killed runtime leaves behind: ended at the next start, and waited for
// only until it is dead (a zombie nobody reaps counts as dead: its ports are released).
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { portHolder } from '../../local/port-holder';
import { isDead, jvmPidRecord, killStaleJvm, StaleJvmError, startTimeOf } from '../../local/stale-jvm';

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
    await killStaleJvm(pidFile, { waitMs: 60_000 });
    expect(existsSync(`/proc/${pid}`)).toBe(true);
    expect(stateOf(pid)).toBe('Z');
    expect(isDead(pid)).toBe(true);
    expect(existsSync(pidFile)).toBe(false);
  });

  it('leaves a process that is not DynamoDB Local alone (the pid was reused)', async () => {
    const pid = await startPrinting('echo $$; exec sleep 300');
    writeFileSync(pidFile, String(pid));
    await killStaleJvm(pidFile, { waitMs: 60_000 });
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

  // A pid above the kernel's pid_max (2^22): no real process is ever signalled by the tests below.
  const fakePid = 2 ** 22 + 4321;

  /** A /proc holding one process: its stat (state, start time 777) and the threads still running. */
  function fakeProc(state: string, threads: number[]): string {
    const proc = mkdtempSync(path.join(dir, 'proc-'));
    mkdirSync(path.join(proc, String(fakePid), 'task', String(fakePid)), { recursive: true });
    for (const thread of threads) mkdirSync(path.join(proc, String(fakePid), 'task', String(thread)));
    const rest = Array.from({ length: 17 }, () => '0').join(' ');
    writeFileSync(path.join(proc, String(fakePid), 'stat'), `${fakePid} (java) ${state} 1 ${rest} 777 0 0`);
    // A zombie's command line reads empty.
    writeFileSync(path.join(proc, String(fakePid), 'cmdline'), '');
    return proc;
  }

  it('writes the start time beside the pid, and reads it back from /proc', () => {
    const proc = fakeProc('S', []);
    expect(startTimeOf(fakePid, proc)).toBe('777');
    expect(jvmPidRecord(fakePid, proc)).toBe(`${fakePid} 777`);
    expect(jvmPidRecord(process.pid)).toMatch(new RegExp(`^${process.pid} \\d+$`));
  });

  it('waits for a JVM whose main thread has exited while its other threads still hold the port', async () => {
    // The race of a killed runtime: its JVM noticed and is exiting, so it has no command line left.
    const proc = fakeProc('Z', [fakePid + 1, fakePid + 2]);
    writeFileSync(pidFile, `${fakePid} 777`);
    let done = false;
    const killing = killStaleJvm(pidFile, { proc, waitMs: 60_000 }).then(() => (done = true));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(done).toBe(false);
    rmSync(path.join(proc, String(fakePid), 'task', String(fakePid + 1)), { recursive: true });
    rmSync(path.join(proc, String(fakePid), 'task', String(fakePid + 2)), { recursive: true });
    await killing;
    expect(done).toBe(true);
  });

  it('says which pid would not die, and leaves a pid with another start time alone', async () => {
    const proc = fakeProc('Z', [fakePid + 1]);
    writeFileSync(pidFile, `${fakePid} 777`);
    const error = await killStaleJvm(pidFile, { proc, waitMs: 100 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StaleJvmError);
    expect((error as Error).message).toContain(`pid ${fakePid}`);
    // The pid reused by another process (another start time): not waited for.
    writeFileSync(pidFile, `${fakePid} 778`);
    await expect(killStaleJvm(pidFile, { proc, waitMs: 100 })).resolves.toBeUndefined();
  });

  it("waits for the dead JVM's port to be free, and names what holds it when it stays taken", async () => {
    const proc = fakeProc('Z', []);
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as net.AddressInfo).port;
    try {
      expect(portHolder(port)).toContain(`pid ${process.pid} (`);
      writeFileSync(pidFile, `${fakePid} 777`);
      const error = await killStaleJvm(pidFile, { proc, port, portWaitMs: 300 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StaleJvmError);
      expect((error as Error).message).toContain(`port ${port}`);
      expect((error as Error).message).toContain(`pid ${fakePid}`);
      expect((error as Error).message).toContain(`held by pid ${process.pid}`);

      writeFileSync(pidFile, `${fakePid} 777`);
      const waiting = killStaleJvm(pidFile, { proc, port, portWaitMs: 60_000 });
      setTimeout(() => holder.close(), 200);
      await expect(waiting).resolves.toBeUndefined();
    } finally {
      holder.close();
    }
  });
});
