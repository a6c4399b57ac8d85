// The mail rig's server processes: each started in the foreground in its own process group, awaited on
// its listening socket, and stopped with everything it forked.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname } from 'node:path';

export interface ServerProcess {
  name: string;
  pid: number;
  /** Resolves once the process has exited (at once if it already has). */
  exited: Promise<void>;
  /** Output the process wrote to stdout/stderr (its own log files are separate). */
  output(): string;
  /** SIGTERM to its whole process group, SIGKILL after `graceMs`; resolves when the leader has exited. */
  stop(graceMs?: number): Promise<void>;
}

/** Starts `command` detached (its own process group) with stdout and stderr appended to `outputFile`. */
export function startServerProcess(
  name: string,
  command: string,
  args: string[],
  outputFile: string,
  /** Receives the process as soon as it is spawned, so a caller can stop it even if a later step fails. */
  track: (server: ServerProcess) => void,
): ServerProcess {
  const fd = openSync(outputFile, 'a');
  const child: ChildProcess = spawn(command, args, {
    detached: true,
    stdio: ['ignore', fd, fd],
    // In the server's own directory: a leftover server is recognised by its working directory.
    cwd: dirname(outputFile),
  });
  closeSync(fd);
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });
  const pid = child.pid ?? -1;
  const output = () => {
    try {
      return readFileSync(outputFile, 'utf8');
    } catch {
      return '';
    }
  };
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-pid, signal);
    } catch {
      // The group is gone already.
    }
  };
  const stop = async (graceMs = 5000) => {
    if (pid > 0) signalGroup('SIGTERM');
    const timer = new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), graceMs).unref());
    if ((await Promise.race([exited.then(() => 'ok' as const), timer])) === 'late') signalGroup('SIGKILL');
    await exited;
    // Children that outlived their leader (a daemon's workers) go with the group.
    await waitGroupGone(pid, graceMs);
  };
  const server = { name, pid, exited, output, stop };
  track(server);
  return server;
}

/**
 * Takes charge of a daemon that made itself a session leader (Postfix's master does setsid(), leaving the
 * group its starter ran in): stopping it signals its own group, which holds all the daemons it forked.
 */
export function adoptProcessGroup(
  name: string,
  pid: number,
  output: () => string,
  track: (server: ServerProcess) => void,
): ServerProcess {
  const alive = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  const exited = (async () => {
    while (alive()) await new Promise((resolve) => setTimeout(resolve, 50));
  })();
  const stop = async (graceMs = 5000) => {
    try {
      process.kill(-pid, 'SIGTERM');
    } catch {
      // Already gone.
    }
    await waitGroupGone(pid, graceMs);
  };
  const server = { name, pid, exited, output, stop };
  track(server);
  return server;
}

/** Throws if something already listens on `host:port` (a rig left running, or another test's server). */
export async function assertFree(host: string, port: number): Promise<void> {
  if (await canConnect(host, port))
    throw new Error(`${host}:${port} is already in use: is another mail rig running on this address block?`);
}

/** Waits until no process of group `pgid` is left, SIGKILLing the group once `graceMs` has passed. */
async function waitGroupGone(pgid: number, graceMs: number): Promise<void> {
  const deadline = Date.now() + graceMs;
  let killed = false;
  for (;;) {
    try {
      process.kill(-pgid, 0);
    } catch {
      return;
    }
    if (!killed && Date.now() > deadline) {
      killed = true;
      try {
        process.kill(-pgid, 'SIGKILL');
      } catch {
        return;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Resolves once `host:port` accepts a TCP connection; rejects with the process's output if it exits first. */
export async function waitForListening(
  server: ServerProcess,
  host: string,
  port: number,
  timeoutMs = 15_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  void server.exited.then(() => (exited = true));
  for (;;) {
    if (exited)
      throw new Error(
        `${server.name} exited before listening on ${host}:${port}:\n${server.output().slice(-4000)}`,
      );
    if (await canConnect(host, port)) return;
    if (Date.now() > deadline)
      throw new Error(
        `${server.name} not listening on ${host}:${port} after ${timeoutMs} ms:\n${server.output().slice(-4000)}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function canConnect(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Runs a command to completion; rejects with its output when it fails. */
export function run(command: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${command} ${args.join(' ')} exited ${code}:\n${out}`)),
    );
  });
}

/** The pids of live processes in the given process groups (from /proc/PID/stat, field 5). */
export function processGroupMembers(pgids: number[]): number[] {
  const wanted = new Set(pgids);
  const members: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses, so split after its last ')'.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[0] !== 'Z' && wanted.has(Number(fields[2]))) members.push(Number(entry));
    } catch {
      // Exited while we looked.
    }
  }
  return members;
}
