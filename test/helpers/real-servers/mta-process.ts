// One mail server process of a real-MTA test: spawned in its own process group with its output in a
// file, stopped by its pid (never by name), and a wait until its SMTP port answers.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import net from 'node:net';

export interface MtaProcess {
  readonly name: string;
  /** The last lines of its output, for a failure's message. */
  output(): string;
  stop(): Promise<void>;
}

export function spawnMta(name: string, command: string, args: string[], outFile: string): MtaProcess {
  const fd = openSync(outFile, 'a');
  const child: ChildProcess = spawn(command, args, { detached: true, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  child.on('error', () => undefined);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    name,
    output: () => tail(outFile),
    stop: async () => {
      if (child.exitCode !== null || child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        return;
      }
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // gone meanwhile
        }
      }, 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

export function tail(file: string, lines = 30): string {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n') : '';
}

/** Resolves once host:port accepts a connection and sends a 220 greeting; throws after `timeoutMs`. */
export async function waitForSmtp(host: string, port: number, what: () => string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = net.connect({ host, port });
      socket.setTimeout(2000, () => {
        socket.destroy();
        resolve(false);
      });
      socket.once('data', (chunk) => {
        socket.end('QUIT\r\n');
        resolve(chunk.toString().startsWith('220'));
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`no SMTP greeting on ${host}:${port}:\n${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The mailboxes every real-MTA target serves, by role (the test's truth). */
export interface TargetMailboxes {
  /** Domain with live mailboxes; unknown local parts are refused. */
  domain: string;
  live: string[];
  /** Refused as disabled (5.2.1). */
  disabled: string[];
  /** Domain that accepts any local part but the refused ones. */
  catchAllDomain: string;
  catchAllRefused: string[];
  /** The probe's MAIL FROM: its domain is local to the server (a sender it can verify). */
  sender: string;
}
