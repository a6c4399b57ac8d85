// A DynamoDB Local JVM left behind by a runtime that was killed (SIGKILL, a crash): the next start on
// the same data directory ends it, before it checks its ports (the JVM would hold DynamoDB Local's).
import { existsSync, readFileSync, rmSync } from 'node:fs';

/** Kills the JVM whose pid the file names, if it is still DynamoDB Local; resolves once it is gone. */
export async function killStaleJvm(pidFile: string): Promise<void> {
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
  // SIGKILL is delivered asynchronously: wait (2 s at most) until the process, and its port, are gone.
  for (let waited = 0; waited < 2000 && existsSync(`/proc/${pid}`); waited += 20)
    await new Promise((resolve) => setTimeout(resolve, 20));
}
