// A DynamoDB Local JVM left behind by a runtime that was killed (SIGKILL, a crash): the next start on
// the same data directory ends it, before it checks its ports (the JVM would hold DynamoDB Local's).
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';

/**
 * How long to wait for the killed JVM to be dead. A SIGKILL takes effect only once the process leaves
 * uninterruptible sleep: a JVM inside an fsync (SQLite's, on a busy disk) can take seconds to die.
 */
const deathWaitMs = 15_000;

/**
 * Whether the process is dead: gone, or a zombie (it has exited and released its ports; only its
 * parent's wait is missing, which an orphan's reaper may never do) with no thread left. A JVM's main
 * thread can be a zombie while its other threads are still exiting: those hold its open files, its
 * listening socket included, until the last one is gone.
 */
export function isDead(pid: number, proc = '/proc'): boolean {
  let stat: string;
  try {
    stat = readFileSync(`${proc}/${pid}/stat`, 'utf8');
  } catch {
    return true;
  }
  // "<pid> (<command>) <state> ...": the command may hold spaces and parentheses, the state follows the last ")"
  const close = stat.lastIndexOf(')');
  if (stat.charAt(close + 2) !== 'Z') return false;
  try {
    return readdirSync(`${proc}/${pid}/task`).every((task) => task === String(pid));
  } catch {
    return true;
  }
}

/** Kills the JVM whose pid the file names, if it is still DynamoDB Local; resolves once it is dead. */
export async function killStaleJvm(pidFile: string, waitMs = deathWaitMs): Promise<void> {
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8'));
  rmSync(pidFile, { force: true });
  if (!Number.isInteger(pid) || pid <= 0) return;
  try {
    const commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    if (!commandLine.includes('DynamoDBLocal')) return;
    process.kill(pid, 'SIGKILL');
  } catch {
    return; // Gone already, or not on Linux: nothing to clean up.
  }
  // SIGKILL is delivered asynchronously: wait until the process, and with it its port, is dead.
  for (let waited = 0; waited < waitMs && !isDead(pid); waited += 20)
    await new Promise((resolve) => setTimeout(resolve, 20));
}
