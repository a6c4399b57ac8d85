// CPU per thread and per process, read from /proc: what bench:bulk, its timeline and bench/s3-put.ts
// split between the main thread, the worker threads and V8's helpers, and what another process (a local
// S3 child, DynamoDB Local's JVM) spent.
import { readdirSync, readFileSync } from 'node:fs';

export type ThreadCpu = Map<string, { name: string; seconds: number }>;

/** CPU seconds so far of each thread of this process, by thread id, with its name (Linux; else empty). */
export function threadCpu(): ThreadCpu {
  const out: ThreadCpu = new Map();
  const tick = 100; // USER_HZ
  let tasks: string[];
  try {
    tasks = readdirSync('/proc/self/task');
  } catch {
    return out;
  }
  for (const task of tasks) {
    try {
      const stat = readFileSync(`/proc/self/task/${task}/stat`, 'utf8');
      // the name is in parentheses and may hold spaces; utime and stime are fields 14 and 15
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(task, { name, seconds: (Number(fields[11]) + Number(fields[12])) / tick });
    } catch {
      // the thread ended meanwhile (its CPU leaves the sums: a worker ends only at stop)
    }
  }
  return out;
}

/** CPU ms so far of process `pid`: its main thread, and its other threads together (Linux /proc). */
export function processThreadsCpu(pid: number): { main: number; others: number } {
  const out = { main: 0, others: 0 };
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ms = (Number(fields[11]) + Number(fields[12])) * 10;
      if (Number(task) === pid) out.main += ms;
      else out.others += ms;
    } catch {
      // the thread ended meanwhile
    }
  }
  return out;
}

/** CPU ms (user + system) of process `pid` so far, from /proc (Linux); undefined elsewhere. */
export function processCpuMs(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // utime and stime are fields 14 and 15 of the line, in clock ticks (100 a second on Linux)
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return undefined;
  }
}
