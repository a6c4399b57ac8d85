// A rig whose test process died without stop() (killed by a timeout, SIGKILL) leaves its servers holding
// the rig's addresses. Each rig records its process groups in a file named for its address block; the
// next rig on that block ends what is still running from the recorded temp dir before it starts, and a
// rig's own process SIGKILLs its servers if it exits without stopping them.
import { existsSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface RigRecord {
  dir: string;
  pgids: number[];
}

export function recordFile(addressBase: string): string {
  return join(tmpdir(), `mail-rig-${addressBase}.json`);
}

export function writeRecord(file: string, record: RigRecord): void {
  writeFileSync(file, JSON.stringify(record));
}

export function removeRecord(file: string): void {
  rmSync(file, { force: true });
}

/** True if process `pid` belongs to the rig in `dir`: its command line or working directory names it. */
function belongsTo(pid: number, dir: string): boolean {
  try {
    if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(dir)) return true;
    return readlinkSync(`/proc/${pid}/cwd`).startsWith(dir);
  } catch {
    return false;
  }
}

/** Ends the servers of a rig recorded in `file` that are still running, and removes its temp dir. */
export async function endLeftoverRig(file: string): Promise<void> {
  if (!existsSync(file)) return;
  let record: RigRecord;
  try {
    record = JSON.parse(readFileSync(file, 'utf8')) as RigRecord;
  } catch {
    removeRecord(file);
    return;
  }
  const leaders = record.pgids.filter((pgid) => belongsTo(pgid, record.dir));
  for (const pgid of leaders) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // Gone meanwhile.
    }
  }
  const deadline = Date.now() + 5000;
  while (leaders.some((pgid) => existsSync(`/proc/${pgid}`) && !isZombie(pgid)) && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 50));
  if (record.dir.startsWith(join(tmpdir(), 'mail-rig-')))
    rmSync(record.dir, { recursive: true, force: true });
  removeRecord(file);
}

function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

/** SIGKILLs the groups at once; for process 'exit', where nothing asynchronous runs any more. */
export function killGroupsNow(pgids: number[]): void {
  for (const pgid of pgids) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}
