// Plumbing the two platform fakes share: a loopback HTTP server, bodies, a movable clock, the request log,
// the `/_control` bridge, and webhook delivery with a retry policy.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeServerOptions {
  /** Loopback address to listen on (default 127.0.0.1, port 0: the OS picks a free port). */
  host?: string;
  port?: number;
}

export interface FakeRequest {
  method: string;
  url: URL;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

export interface FakeResponse {
  status: number;
  headers?: Record<string, string>;
  /** A string or Buffer is sent as is; anything else as JSON. */
  body?: unknown;
  contentType?: string;
}

/** One request as the fake saw it: what a test asserts to catch a client that hammers or builds pages. */
export interface RequestRecord {
  at: number;
  method: string;
  path: string;
  status: number;
  userId: number | null;
}

/** The fake's own time: the wall clock plus an offset a test moves with `advanceClock`. */
export class Clock {
  private offsetMs = 0;
  now(): number {
    return Date.now() + this.offsetMs;
  }
  iso(at = this.now()): string {
    return new Date(at).toISOString();
  }
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}

export function randomToken(bytes = 24): string {
  return randomBytes(bytes).toString('base64url');
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function write(res: ServerResponse, out: FakeResponse): void {
  const headers: Record<string, string> = { ...out.headers };
  let payload: Buffer | undefined;
  if (out.body !== undefined) {
    if (Buffer.isBuffer(out.body)) payload = out.body;
    else if (typeof out.body === 'string') payload = Buffer.from(out.body);
    else payload = Buffer.from(JSON.stringify(out.body));
    headers['content-type'] = out.contentType ?? 'application/json; charset=utf-8';
    headers['content-length'] = String(payload.length);
  }
  res.writeHead(out.status, headers);
  res.end(payload);
}

export interface StartedServer {
  baseUrl: string;
  stop(): Promise<void>;
}

/** Starts a server whose every request goes through `handle`; a throw answers 500 and is kept for the test. */
export async function startFakeServer(
  options: FakeServerOptions,
  handle: (req: FakeRequest) => Promise<FakeResponse>,
): Promise<StartedServer> {
  const server = createServer((req, res) => {
    void (async () => {
      try {
        const body = await readBody(req);
        const url = new URL(req.url ?? '/', 'http://fake');
        write(res, await handle({ method: req.method ?? 'GET', url, headers: req.headers, body }));
      } catch (error) {
        write(res, { status: 500, body: { error: `fake failed: ${(error as Error).message}` } });
      }
    })();
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://${host}:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * `POST /_control/<method>` with a JSON array of arguments calls that control method and answers
 * `{result}`: so an e2e test can drive a fake that runs in another process. Only own methods of `control`.
 */
export async function controlOverHttp(control: object, req: FakeRequest): Promise<FakeResponse> {
  const name = req.url.pathname.slice('/_control/'.length);
  const method = (control as Record<string, unknown>)[name];
  if (req.method !== 'POST' || typeof method !== 'function' || !Object.hasOwn(control, name)) {
    return { status: 404, body: { error: `no control method ${name}` } };
  }
  let args: unknown = [];
  if (req.body.length > 0) args = JSON.parse(req.body.toString('utf8'));
  if (!Array.isArray(args)) return { status: 400, body: { error: 'body must be a JSON array of arguments' } };
  try {
    const result: unknown = await (method as (...a: unknown[]) => unknown).apply(control, args);
    return { status: 200, body: { result: result ?? null } };
  } catch (error) {
    return { status: 400, body: { error: (error as Error).message } };
  }
}

/** One webhook POST as the fake attempted it. */
export interface WebhookDelivery {
  id: string;
  url: string;
  event: string;
  body: string;
  headers: Record<string, string>;
  /** HTTP status of each attempt, or 'network-error'; 'dropped' when a test made the fake lose it. */
  attempts: Array<number | 'network-error'>;
  outcome: 'delivered' | 'failed' | 'dropped';
}

export interface RetryPolicy {
  /** Attempts after the first. */
  retries: number;
  intervalMs: number;
  /** Whether a non-2xx answer is retried (Salesloft) or counts as acknowledged (Outreach). */
  retryOnHttpError: boolean;
}

/** Sends webhooks, keeps every delivery, and lets a test lose the next ones or wait until all settle. */
export class WebhookSender {
  readonly deliveries: WebhookDelivery[] = [];
  private inFlight = new Set<Promise<void>>();
  private toDrop = 0;

  constructor(private readonly policy: () => RetryPolicy) {}

  drop(count: number): void {
    this.toDrop += count;
  }

  send(delivery: Omit<WebhookDelivery, 'attempts' | 'outcome'>, onFailed?: () => void): void {
    const record: WebhookDelivery = { ...delivery, attempts: [], outcome: 'failed' };
    this.deliveries.push(record);
    if (this.toDrop > 0) {
      this.toDrop -= 1;
      record.outcome = 'dropped';
      return;
    }
    const run = this.attempt(record, this.policy()).then((ok) => {
      if (!ok) onFailed?.();
    });
    this.inFlight.add(run);
    void run.finally(() => this.inFlight.delete(run));
  }

  private async attempt(record: WebhookDelivery, policy: RetryPolicy): Promise<boolean> {
    for (let i = 0; i <= policy.retries; i++) {
      if (i > 0) await new Promise((resolve) => setTimeout(resolve, policy.intervalMs));
      try {
        const res = await fetch(record.url, {
          method: 'POST',
          headers: record.headers,
          body: record.body,
          redirect: 'manual', // Outreach does not follow redirects (reference §1.7 [T])
          signal: AbortSignal.timeout(5000), // "respond 200 within 5 s" (reference §1.7 [T])
        });
        await res.arrayBuffer();
        record.attempts.push(res.status);
        if ((res.status >= 200 && res.status < 300) || !policy.retryOnHttpError) {
          record.outcome = 'delivered';
          return true;
        }
      } catch {
        record.attempts.push('network-error');
      }
    }
    record.outcome = 'failed';
    return false;
  }

  /** Resolves once every delivery started so far (retries included) has ended. */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }
}

/** Lower-case comparison key for an email address: stored as given, compared without case (reference §6.3). */
export function emailKey(email: string): string {
  return email.trim().toLowerCase();
}

/** `Rep.One@Example.test` for `rep.one@example.test`: the case variant seeds use for duplicates. */
export function caseVariant(email: string): string {
  const [local = '', domain = ''] = email.split('@');
  return `${local.charAt(0).toUpperCase()}${local.slice(1)}@${domain.toUpperCase()}`;
}
