// CPU per thread of this process, read from /proc/self/task: what bench:bulk, its timeline and
// bench/s3-put.ts split between the main thread, the worker threads and V8's helpers.
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
