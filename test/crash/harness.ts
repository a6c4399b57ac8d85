// The crash suite's tools: the local runtime as its own process (what `npm start` runs, SIGKILLed at
// chosen moments and restarted on the same DATA_DIR), and a webhook receiver on 127.0.0.1.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { readJvmPid } from '../../local/stale-jvm';

const root = path.resolve(__dirname, '../..');

/** One run of local/start.ts. Node runs it directly (no tsx wrapper), so SIGKILL hits the runtime itself. */
export class RuntimeProcess {
  private output = '';
  private lineWaiters: { pattern: RegExp; resolve: () => void }[] = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  baseUrl = '';

  private constructor(readonly child: ChildProcessWithoutNullStreams) {
    const onData = (chunk: Buffer) => {
      this.output = (this.output + chunk.toString()).slice(-200_000);
      this.lineWaiters = this.lineWaiters.filter((waiter) => {
        if (!waiter.pattern.test(this.output)) return true;
        waiter.resolve();
        return false;
      });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    this.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  }

  /** Starts the runtime and resolves once it printed its ready banner. */
  static async start(dataDir: string, env: Record<string, string>): Promise<RuntimeProcess> {
    const child = spawn(process.execPath, ['--import', 'tsx', 'local/start.ts'], {
      cwd: root,
      env: { ...process.env, PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'info', ...env },
    });
    const runtime = new RuntimeProcess(child);
    const ready = runtime.waitFor(/Ctrl-C stops everything/, 120_000);
    const died = runtime.exited.then(({ code, signal }) => {
      throw new Error(`the runtime exited (${signal ?? code}) before it was ready:\n${runtime.tail()}`);
    });
    await Promise.race([ready, died]);
    const url = /API:\s+(\S+)/.exec(runtime.output)?.[1];
    if (!url) throw new Error(`no API line in:\n${runtime.tail()}`);
    runtime.baseUrl = url;
    return runtime;
  }

  /** Resolves when the output (so far or later) matches. */
  waitFor(pattern: RegExp, timeoutMs = 60_000): Promise<void> {
    if (pattern.test(this.output)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no ${pattern} within ${timeoutMs} ms:\n${this.tail()}`)),
        timeoutMs,
      );
      this.lineWaiters.push({
        pattern,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  tail(): string {
    return this.output.slice(-4000);
  }

  /** kill -9 of the runtime process only (its DynamoDB Local must notice by itself). */
  async kill(): Promise<void> {
    this.child.kill('SIGKILL');
    await this.exited;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 20_000);
    await this.exited;
    clearTimeout(timer);
  }
}

/** The pid of the DynamoDB Local JVM serving a data directory, while one runs. */
export function jvmPid(dataDir: string): number | undefined {
  return readJvmPid(path.join(dataDir, 'dynamodb', 'jvm.pid'))?.pid;
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export interface Delivery {
  webhookId: string;
  body: Record<string, unknown>;
}

export interface WebhookReceiver {
  url: string;
  deliveries: Delivery[];
  forJob(jobId: string): Delivery[];
  close(): Promise<void>;
}

/** Answers 200 to every POST and records it. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const deliveries: Delivery[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      try {
        deliveries.push({
          webhookId: String(req.headers['webhook-id'] ?? ''),
          body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
        });
      } catch {
        deliveries.push({ webhookId: String(req.headers['webhook-id'] ?? ''), body: {} });
      }
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    deliveries,
    // The completion webhook's id is msg_<jobId> (functions/domain/bulk/completion.ts).
    forJob: (jobId) => deliveries.filter((d) => d.webhookId === `msg_${jobId}`),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
