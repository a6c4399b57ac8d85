// Mailbox probe over SMTP: EHLO, MAIL FROM, RCPT TO, QUIT (no DATA: nothing is ever sent), directly or
// through a SOCKS5 proxy. Greylisting (4xx) is retried after a delay within a bounded number of attempts.
import net from 'node:net';
import { randomBytes } from 'node:crypto';
import { SocksClient } from 'socks';
import { countMetric } from '../../metrics';
import { proxyPoolFor } from '../probe/proxy-pool';
import type { MailboxProbe } from './types';

export interface SmtpProbeOptions {
  port: number;
  /** Per step: connect, greeting and each reply. */
  timeoutMs: number;
  heloName: string;
  mailFrom: string;
  /** socks5://[user:pass@]host:port */
  socksProxy?: string;
  /** Total attempts when the server answers 4xx (greylisting), and the wait between them. */
  greylistAttempts: number;
  greylistDelayMs: number;
}

export interface SmtpReply {
  code: number;
  enhanced: string | null;
  text: string;
}

type Session =
  | { kind: 'replies'; replies: SmtpReply[] }
  | { kind: 'temporary'; reply: SmtpReply }
  | { kind: 'refused'; reply: SmtpReply }
  | { kind: 'timeout'; stage: string }
  | { kind: 'unreachable'; detail: string }
  | { kind: 'proxy_failed'; detail: string };

export class Timeout extends Error {}
class Closed extends Error {}

/** Collects multi-line replies ("250-..." continues, "250 ..." ends) from a socket. */
export class ReplyReader {
  private buffer = '';
  private lines: string[] = [];
  private readonly ready: SmtpReply[] = [];
  private waiter: ((r: SmtpReply | Error) => void) | null = null;
  private failure: Error | null = null;

  constructor(socket: net.Socket) {
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => this.feed(chunk));
    socket.on('error', () => this.fail(new Closed('socket error')));
    socket.on('close', () => this.fail(new Closed('connection closed')));
  }

  private feed(chunk: string): void {
    this.buffer += chunk;
    if (this.buffer.length > 64 * 1024) return this.fail(new Closed('reply too long'));
    let nl: number;
    while ((nl = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, nl).replace(/\r$/, '');
      this.buffer = this.buffer.slice(nl + 1);
      this.lines.push(line);
      if (line.length < 4 || line[3] !== '-') {
        this.push(parseReply(this.lines));
        this.lines = [];
      }
    }
  }

  private push(reply: SmtpReply): void {
    const w = this.waiter;
    if (w) {
      this.waiter = null;
      w(reply);
    } else this.ready.push(reply);
  }

  private fail(e: Error): void {
    if (this.failure) return;
    this.failure = e;
    const w = this.waiter;
    this.waiter = null;
    w?.(e);
  }

  next(timeoutMs: number): Promise<SmtpReply> {
    const r = this.ready.shift();
    if (r) return Promise.resolve(r);
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiter = null;
        reject(new Timeout('no reply'));
      }, timeoutMs);
      this.waiter = (x) => {
        clearTimeout(timer);
        if (x instanceof Error) reject(x);
        else resolve(x);
      };
    });
  }
}

function parseReply(lines: string[]): SmtpReply {
  const last = lines[lines.length - 1] ?? '';
  const code = Number.parseInt(last.slice(0, 3), 10);
  const text = lines.map((l) => l.slice(4)).join(' ');
  const m = /^([245])\.(\d{1,3})\.(\d{1,3})\b/.exec(text);
  return { code: Number.isFinite(code) ? code : 0, enhanced: m ? m[0] : null, text };
}

export function connectDirect(address: string, port: number, timeoutMs: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: address, port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('connect timeout'));
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      resolve(socket);
    });
    socket.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
  });
}

export async function connectSocks(
  proxy: string,
  address: string,
  port: number,
  timeoutMs: number,
): Promise<net.Socket> {
  const url = new URL(proxy);
  const { socket } = await SocksClient.createConnection({
    proxy: {
      host: url.hostname,
      port: Number(url.port || 1080),
      type: 5,
      userId: url.username ? decodeURIComponent(url.username) : undefined,
      password: url.password ? decodeURIComponent(url.password) : undefined,
    },
    command: 'connect',
    destination: { host: address, port },
    timeout: timeoutMs,
  });
  return socket;
}

/** One SMTP conversation with one host: RCPT TO for each recipient, then QUIT. Never throws. */
async function session(
  addresses: readonly string[],
  recipients: readonly string[],
  o: SmtpProbeOptions,
): Promise<Session> {
  let socket: net.Socket | null = null;
  let lastError = 'no address';
  const pool = proxyPoolFor(o.socksProxy);
  for (const address of addresses) {
    const proxy = pool?.pick();
    try {
      socket = proxy
        ? await connectSocks(proxy, address, o.port, o.timeoutMs)
        : await connectDirect(address, o.port, o.timeoutMs);
      if (proxy) pool?.succeeded(proxy);
      break;
    } catch (e) {
      lastError = e instanceof Error ? e.message : String(e);
      if (proxy) {
        // the proxy failed, not the mail host: no evidence about the mailbox
        pool?.failed(proxy);
        return { kind: 'proxy_failed', detail: lastError };
      }
    }
  }
  if (!socket) return { kind: 'unreachable', detail: lastError };
  const s = socket;
  const reader = new ReplyReader(s);
  let stage = 'greeting';
  const send = async (line: string, nextStage: string): Promise<SmtpReply> => {
    stage = nextStage;
    s.write(`${line}\r\n`);
    return reader.next(o.timeoutMs);
  };
  try {
    const greeting = await reader.next(o.timeoutMs);
    if (greeting.code >= 400 && greeting.code < 500) return { kind: 'temporary', reply: greeting };
    if (greeting.code !== 220) return { kind: 'refused', reply: greeting };
    let hello = await send(`EHLO ${o.heloName}`, 'ehlo');
    if (hello.code !== 250) hello = await send(`HELO ${o.heloName}`, 'helo');
    if (hello.code >= 400 && hello.code < 500) return { kind: 'temporary', reply: hello };
    if (hello.code !== 250) return { kind: 'refused', reply: hello };
    const from = await send(`MAIL FROM:<${o.mailFrom}>`, 'mail');
    if (from.code >= 400 && from.code < 500) return { kind: 'temporary', reply: from };
    if (from.code !== 250) return { kind: 'refused', reply: from };
    const replies: SmtpReply[] = [];
    for (const rcpt of recipients) replies.push(await send(`RCPT TO:<${rcpt}>`, 'rcpt'));
    s.write('QUIT\r\n');
    return { kind: 'replies', replies };
  } catch (e) {
    if (e instanceof Timeout) return { kind: 'timeout', stage };
    return { kind: 'unreachable', detail: `${stage}: ${e instanceof Error ? e.message : String(e)}` };
  } finally {
    s.end();
    setTimeout(() => s.destroy(), 1000).unref();
  }
}

const NOT_FOUND_TEXT =
  /(no such|unknown|not exist|doesn't exist|does not exist|invalid (recipient|mailbox|user|address)|user not found|mailbox not found|mailbox unavailable|recipient not found|address rejected|undeliverable)/i;
const POLICY_TEXT =
  /(spam|block|policy|reputation|blacklist|listed|denied|relay|not permitted|authentication|rbl|dnsbl)/i;

/** What one RCPT reply says about the mailbox. */
export function classifyRcpt(reply: SmtpReply): MailboxProbe {
  const { code, enhanced, text } = reply;
  if (code === 250 || code === 251) return 'accepted';
  if (code === 452 && enhanced === '4.2.2') return 'full';
  if (code >= 400 && code < 500) return enhanced === '4.2.2' ? 'full' : 'greylisted';
  if (code === 552 || enhanced === '5.2.2') return 'full';
  if (enhanced?.startsWith('5.7.')) return 'blocked';
  if (enhanced && /^5\.1\.(1|0|6|10)$/.test(enhanced)) return 'not_found';
  if (enhanced === '5.2.1') return 'not_found'; // disabled mailbox: it bounces
  if (code >= 500 && code < 600) {
    if (POLICY_TEXT.test(text)) return 'blocked';
    if ((code === 550 || code === 551 || code === 553 || code === 554) && NOT_FOUND_TEXT.test(text))
      return 'not_found';
    return 'blocked';
  }
  return 'error';
}

function sessionOutcome(s: Session, index: number): MailboxProbe {
  switch (s.kind) {
    case 'replies': {
      const r = s.replies[index];
      return r ? classifyRcpt(r) : 'error';
    }
    case 'temporary':
      return 'greylisted';
    case 'refused':
      return 'blocked';
    case 'timeout':
      return 'timeout';
    case 'unreachable':
      return 'unreachable';
    case 'proxy_failed':
      return 'proxy_failed';
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Probes recipients at one mail host; each gets its MailboxProbe. 4xx answers are retried (greylisting
 * wants the same triplet again after a pause) up to greylistAttempts in total.
 */
export async function probeRecipients(
  addresses: readonly string[],
  recipients: readonly string[],
  o: SmtpProbeOptions,
): Promise<MailboxProbe[]> {
  countMetric('MailboxProbes', recipients.length);
  const outcomes: MailboxProbe[] = recipients.map(() => 'greylisted');
  let pending = recipients.map((_, i) => i);
  for (let attempt = 1; attempt <= Math.max(1, o.greylistAttempts) && pending.length > 0; attempt++) {
    if (attempt > 1) await sleep(o.greylistDelayMs);
    const s = await session(
      addresses,
      pending.map((i) => recipients[i] ?? ''),
      o,
    );
    const still: number[] = [];
    pending.forEach((recipientIndex, j) => {
      const outcome = sessionOutcome(s, j);
      outcomes[recipientIndex] = outcome;
      if (outcome === 'greylisted') still.push(recipientIndex);
    });
    pending = still;
  }
  return outcomes;
}

/** A local part no one has: if the server accepts it, it accepts everything (catch-all). */
export function randomLocalPart(): string {
  return `mailvet-probe-${randomBytes(8).toString('hex')}`;
}
