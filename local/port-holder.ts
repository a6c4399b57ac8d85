// Which process listens on a TCP port (Linux /proc), for messages that say what holds a port.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** The socket inodes listening on the port, from /proc/net/tcp and tcp6 (state 0A is LISTEN). */
function listeningInodes(port: number, proc: string): Set<string> {
  const inodes = new Set<string>();
  for (const table of ['tcp', 'tcp6']) {
    let text: string;
    try {
      text = readFileSync(`${proc}/net/${table}`, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      const local = fields[1];
      if (!local || fields[3] !== '0A') continue;
      if (parseInt(local.slice(local.lastIndexOf(':') + 1), 16) === port) inodes.add(fields[9]!);
    }
  }
  return inodes;
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** The `(command) state ...` fields of /proc/PID/stat after the command, which may hold spaces and ")". */
export function statFields(pid: number, proc: string): { command: string; fields: string[] } | undefined {
  let stat: string;
  try {
    stat = readFileSync(`${proc}/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const open = stat.indexOf('(');
  const close = stat.lastIndexOf(')');
  return {
    command: stat.slice(open + 1, close),
    fields: stat
      .slice(close + 2)
      .trim()
      .split(' '),
  };
}

function describe(pid: string, proc: string): string {
  let command = '';
  try {
    command = readFileSync(`${proc}/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    // gone meanwhile
  }
  if (command === '') {
    // A process whose main thread has exited while others still run: only its name is left.
    const stat = statFields(Number(pid), proc);
    command = stat ? `${stat.command}, exiting` : 'exited';
  }
  return `pid ${pid} (${command.length > 120 ? `${command.slice(0, 117)}...` : command})`;
}

/**
 * "pid 1234 (java -cp ... LoopbackLauncher ...)" for the process listening on the port, or undefined
 * when none is found (not Linux, another user's process, or nobody). Each thread's file table is
 * searched: a process whose main thread is a zombie shows no files under /proc/PID/fd.
 */
export function portHolder(port: number, proc = '/proc'): string | undefined {
  const inodes = listeningInodes(port, proc);
  if (inodes.size === 0) return undefined;
  const wanted = new Set([...inodes].map((inode) => `socket:[${inode}]`));
  for (const pid of safeList(proc)) {
    if (!/^\d+$/.test(pid)) continue;
    for (const task of safeList(`${proc}/${pid}/task`)) {
      const fdDir = `${proc}/${pid}/task/${task}/fd`;
      const fds = safeList(fdDir);
      for (const fd of fds) {
        try {
          if (wanted.has(readlinkSync(`${fdDir}/${fd}`))) return describe(pid, proc);
        } catch {
          // closed meanwhile
        }
      }
      // Threads share one file table unless the leader is gone; the first readable one is enough.
      if (fds.length > 0) break;
    }
  }
  return undefined;
}
