// A DynamoDB Local JVM left behind by a runtime that was killed (SIGKILL, a crash): the next start on
// the same data directory ends it and waits for its port, before it checks its ports (the JVM would
// hold DynamoDB Local's).
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { portHolder, statFields } from './port-holder';
import { portIsFree } from './ports';

/**
 * How long to wait for the killed JVM to be dead. A SIGKILL takes effect only once the process leaves
 * uninterruptible sleep: a JVM inside an fsync (SQLite's, on a busy disk) can take seconds to die.
 */
const deathWaitMs = 15_000;

/** How long a dead JVM's port may take to be free to bind again (it is at once, on Linux). */
const portWaitMs = 5_000;

/** A stale JVM that would not die, or whose port stays taken: the start cannot go on, and says why. */
export class StaleJvmError extends Error {}

/**
 * When the process started (clock ticks after boot, /proc/PID/stat's 22nd field): with the pid, it names
 * one process for good, even as a zombie whose command line is gone. Undefined without /proc.
 */
export function startTimeOf(pid: number, proc = '/proc'): string | undefined {
  // fields[0] is the state, the 3rd field; the start time is the 22nd
  return statFields(pid, proc)?.fields[19];
}

/** What the pid file holds: the JVM's pid and, where /proc tells it, its start time. */
export function jvmPidRecord(pid: number, proc = '/proc'): string {
  const started = startTimeOf(pid, proc);
  return started === undefined ? String(pid) : `${pid} ${started}`;
}

/** The pid file's JVM: its pid and, when the file has it, its start time; undefined without a pid. */
export function readJvmPid(pidFile: string): { pid: number; startTime?: string } | undefined {
  let text: string;
  try {
    text = readFileSync(pidFile, 'utf8');
  } catch {
    return undefined;
  }
  const [pidText = '', startTime] = text.trim().split(/\s+/);
  const pid = Number(pidText);
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  return startTime === undefined ? { pid } : { pid, startTime };
}

/**
 * Whether the process is dead: gone, or a zombie (it has exited and released its ports; only its
 * parent's wait is missing, which an orphan's reaper may never do) with no thread left. A JVM's main
 * thread can be a zombie while its other threads are still exiting: those hold its open files, its
 * listening socket included, until the last one is gone.
 */
export function isDead(pid: number, proc = '/proc'): boolean {
  const stat = statFields(pid, proc);
  if (!stat) return true;
  if (stat.fields[0] !== 'Z') return false;
  try {
    return readdirSync(`${proc}/${pid}/task`).every((task) => task === String(pid));
  } catch {
    return true;
  }
}

/**
 * Whether the pid is still the JVM the file was written for. A JVM that is exiting has no command line
 * any more (its main thread is a zombie while other threads still hold the port): the start time, or
 * for a pid file with none the command `java`, still tells it.
 */
function isTheJvm(pid: number, startTime: string | undefined, proc: string): boolean {
  const stat = statFields(pid, proc);
  if (!stat) return false;
  if (startTime !== undefined) return stat.fields[19] === startTime;
  let commandLine = '';
  try {
    commandLine = readFileSync(`${proc}/${pid}/cmdline`, 'utf8');
  } catch {
    // unreadable: judged by the command alone
  }
  return commandLine === '' ? stat.command === 'java' : commandLine.includes('DynamoDBLocal');
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface KillStaleJvmOptions {
  /** DynamoDB Local's port: once the JVM is dead, wait until it can be bound again. */
  port?: number;
  waitMs?: number;
  portWaitMs?: number;
  proc?: string;
}

/**
 * Kills the JVM the pid file names, if it is still that JVM, and resolves once it is dead and, given
 * its port, once the port is free. Rejects with a StaleJvmError naming the pid (and the port) when the
 * JVM does not die or its port stays taken within the waits.
 */
export async function killStaleJvm(pidFile: string, options: KillStaleJvmOptions = {}): Promise<void> {
  const { port, waitMs = deathWaitMs, proc = '/proc' } = options;
  if (!existsSync(pidFile)) return;
  const jvm = readJvmPid(pidFile);
  rmSync(pidFile, { force: true });
  if (!jvm) return;
  const { pid, startTime } = jvm;
  if (!isTheJvm(pid, startTime, proc)) return; // gone, the pid reused, or not on Linux
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Exited meanwhile (a zombie's threads ignore it too): what matters is that it is dead, below.
  }
  // SIGKILL is delivered asynchronously: wait until the process, and with it its port, is dead.
  for (let waited = 0; !isDead(pid, proc); waited += 20) {
    if (waited >= waitMs)
      throw new StaleJvmError(
        `DynamoDB Local's JVM (pid ${pid}) of a runtime that was killed is still exiting after ${waitMs / 1000} s${port ? ` and holds port ${port}` : ''}. Try again in a moment, or end it: kill -9 ${pid}`,
      );
    await pause(20);
  }
  if (port) await untilPortFree(port, pid, options.portWaitMs ?? portWaitMs);
}

async function untilPortFree(port: number, pid: number, waitMs: number): Promise<void> {
  for (let waited = 0; !(await portIsFree(port, '127.0.0.1')); waited += 50) {
    if (waited >= waitMs) {
      const holder = portHolder(port);
      throw new StaleJvmError(
        `port ${port} (DynamoDB Local) is still in use ${waitMs / 1000} s after the JVM of a killed runtime (pid ${pid}) died${holder ? `: held by ${holder}` : ''}`,
      );
    }
    await pause(50);
  }
}
