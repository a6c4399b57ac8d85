// Many recipients at one mail host over as few SMTP sessions as possible: connect, EHLO, MAIL FROM once,
// then RCPT TO for each recipient (pipelined per RFC 2920 when the server offers PIPELINING), RSET and a
// new MAIL FROM when an envelope is full, QUIT after a number of recipients per session. A session the
// server drops costs a reconnect; the recipients it answered keep their answers. Each RCPT reply goes
// through the single endpoint's classifyRcpt, so one address gets one verdict whichever way it came.
import type net from 'node:net';
import {
  Timeout,
  ReplyReader,
  classifyRcpt,
  connectDirect,
  connectSocks,
  type SmtpReply,
} from '../validation/smtp-probe';
import type { MailboxProbe } from '../validation/types';
import type { ProxyPool } from './proxy-pool';

export interface BatchSessionOptions {
  port: number;
  /** Per step: connect, greeting and each reply. */
  timeoutMs: number;
  heloName: string;
  mailFrom: string;
  proxies: ProxyPool | null;
  /** QUIT and reconnect after this many recipients in one session. */
  maxRecipientsPerSession: number;
  /** RSET and MAIL FROM again after this many recipients in one envelope (RFC 5321 requires >= 100). */
  maxRecipientsPerEnvelope: number;
  /** Sessions after a drop before the rest of the batch is given up as unreachable. */
  maxReconnects: number;
  /** RCPT commands written at once to a PIPELINING server. */
  pipelineWindow: number;
}

export const defaultBatchSessionOptions: Omit<BatchSessionOptions, 'proxies'> = {
  port: 25,
  timeoutMs: 10_000,
  heloName: 'mailvet.local',
  mailFrom: 'probe@mailvet.local',
  maxRecipientsPerSession: 50,
  maxRecipientsPerEnvelope: 100,
  maxReconnects: 2,
  pipelineWindow: 20,
};

/** The probe of one recipient; 'proxy_failed' when the proxy, not the mail host, failed. */
export type RecipientProbe = MailboxProbe;

export interface BatchHooks {
  /** Asked before every RCPT window: how many RCPT may go now (0: stop, the rest stays unfinished). */
  rcptAllowance?(wanted: number): Promise<number>;
  /** True when the caller must stop opening sessions or sending RCPT (its deadline is near). */
  shouldStop?(): boolean;
}

export interface BatchOutcome {
  /** Outcome per recipient that got one. */
  outcomes: Map<string, RecipientProbe>;
  /** Recipients not tried (deadline, allowance): the caller hands them back. */
  unfinished: string[];
  sessions: number;
  /** Whether the server offered PIPELINING (last session). */
  pipelining: boolean;
}

type SessionEnd =
  | { kind: 'done' }
  /** The session cannot be used further: the remaining recipients get `probe`, or retry on reconnect. */
  | { kind: 'dropped'; detail: string }
  | { kind: 'stopped' }
  | { kind: 'failed'; probe: RecipientProbe };

class Session {
  pipelining = false;
  private constructor(
    private readonly socket: net.Socket,
    private readonly reader: ReplyReader,
    private readonly timeoutMs: number,
  ) {}

  static async open(
    address: string,
    o: BatchSessionOptions,
  ): Promise<{ session: Session } | { error: RecipientProbe; detail: string }> {
    const proxy = o.proxies?.pick();
    let socket: net.Socket;
    try {
      socket = proxy
        ? await connectSocks(proxy, address, o.port, o.timeoutMs)
        : await connectDirect(address, o.port, o.timeoutMs);
    } catch (e) {
      const detail = e instanceof Error ? e.message : String(e);
      if (proxy) {
        o.proxies?.failed(proxy);
        return { error: 'proxy_failed', detail };
      }
      return { error: /timeout/i.test(detail) ? 'timeout' : 'unreachable', detail };
    }
    if (proxy) o.proxies?.succeeded(proxy);
    return { session: new Session(socket, new ReplyReader(socket), o.timeoutMs) };
  }

  reply(): Promise<SmtpReply> {
    return this.reader.next(this.timeoutMs);
  }

  async command(line: string): Promise<SmtpReply> {
    this.socket.write(`${line}\r\n`);
    return this.reply();
  }

  write(lines: string[]): void {
    this.socket.write(lines.map((l) => `${l}\r\n`).join(''));
  }

  /**
   * QUIT, resolved once the connection is closed (at most a second later): the host counts a session
   * until then, so the next one of the batch, or of whoever takes the released slot, must not overlap it.
   */
  close(): Promise<void> {
    if (this.socket.destroyed) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.socket.destroy(), 1000);
      this.socket.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
      this.socket.end('QUIT\r\n');
    });
  }
}

const isTemporary = (r: SmtpReply) => r.code >= 400 && r.code < 500;
/** 452 4.5.3 (RFC 5321 4.5.3.1.10): too many recipients in this envelope, not a verdict on the mailbox. */
const tooManyRecipients = (r: SmtpReply) =>
  r.code === 452 && (r.enhanced === '4.5.3' || /too many/i.test(r.text));

/** Greeting, EHLO (HELO when refused), MAIL FROM: the session is ready for RCPT, or why not. */
async function handshake(s: Session, o: BatchSessionOptions): Promise<SessionEnd | null> {
  const greeting = await s.reply();
  if (isTemporary(greeting)) return { kind: 'failed', probe: 'greylisted' };
  if (greeting.code !== 220) return { kind: 'failed', probe: 'blocked' };
  let hello = await s.command(`EHLO ${o.heloName}`);
  if (hello.code === 250) s.pipelining = /(^|\s)PIPELINING(\s|$)/i.test(hello.text);
  else hello = await s.command(`HELO ${o.heloName}`);
  if (isTemporary(hello)) return { kind: 'failed', probe: 'greylisted' };
  if (hello.code !== 250) return { kind: 'failed', probe: 'blocked' };
  return mailFrom(s, o);
}

async function mailFrom(s: Session, o: BatchSessionOptions): Promise<SessionEnd | null> {
  const from = await s.command(`MAIL FROM:<${o.mailFrom}>`);
  if (isTemporary(from)) return { kind: 'failed', probe: 'greylisted' };
  if (from.code !== 250) return { kind: 'failed', probe: 'blocked' };
  return null;
}

/**
 * One session: handshake, then RCPT windows until `queue` is empty, the session limit is reached, the
 * allowance runs out or the caller must stop. Answers land in `outcomes`; recipients are taken off the
 * front of `queue` only once answered.
 */
async function runSession(
  s: Session,
  queue: string[],
  outcomes: Map<string, RecipientProbe>,
  o: BatchSessionOptions,
  hooks: BatchHooks,
): Promise<SessionEnd> {
  const ready = await handshake(s, o);
  if (ready) return ready;
  let inSession = 0;
  let inEnvelope = 0;
  while (queue.length > 0 && inSession < o.maxRecipientsPerSession) {
    if (hooks.shouldStop?.()) return { kind: 'stopped' };
    if (inEnvelope >= o.maxRecipientsPerEnvelope) {
      const reset = await s.command('RSET');
      if (reset.code !== 250) return { kind: 'dropped', detail: `RSET ${reset.code}` };
      const again = await mailFrom(s, o);
      if (again) return again;
      inEnvelope = 0;
    }
    const room = Math.min(
      s.pipelining ? o.pipelineWindow : 1,
      o.maxRecipientsPerSession - inSession,
      o.maxRecipientsPerEnvelope - inEnvelope,
      queue.length,
    );
    const allowed = hooks.rcptAllowance ? Math.min(room, await hooks.rcptAllowance(room)) : room;
    if (allowed <= 0) return { kind: 'stopped' };
    const window = queue.slice(0, allowed);
    s.write(window.map((rcpt) => `RCPT TO:<${rcpt}>`));
    let answered = 0;
    let envelopeFull = false;
    for (const rcpt of window) {
      let reply: SmtpReply;
      try {
        reply = await s.reply();
      } catch (e) {
        if (!(e instanceof Timeout) || envelopeFull) throw e;
        // this recipient stalled the server past the step timeout: it is the one that timed out, the
        // rest of the batch goes on in a new session
        outcomes.set(rcpt, 'timeout');
        queue.shift();
        return { kind: 'dropped', detail: 'rcpt timeout' };
      }
      if (envelopeFull || tooManyRecipients(reply)) {
        // the rest of this window is resent in a fresh envelope
        envelopeFull = true;
        continue;
      }
      // answered recipients are a prefix of the queue: taken off at once, so a drop keeps them
      outcomes.set(rcpt, classifyRcpt(reply));
      queue.shift();
      answered++;
    }
    inSession += answered;
    inEnvelope = envelopeFull ? o.maxRecipientsPerEnvelope : inEnvelope + answered;
  }
  return { kind: 'done' };
}

/**
 * Probes `recipients` at the host reachable on `addresses` (tried in order). Never throws. Recipients
 * left when the caller stops come back in `unfinished`; every other recipient gets an outcome.
 */
export async function probeBatch(
  addresses: readonly string[],
  recipients: readonly string[],
  o: BatchSessionOptions,
  hooks: BatchHooks = {},
): Promise<BatchOutcome> {
  const queue = [...new Set(recipients)];
  const outcomes = new Map<string, RecipientProbe>();
  let sessions = 0;
  let drops = 0;
  let pipelining = false;
  const giveUp = (probe: RecipientProbe) => {
    for (const rcpt of queue.splice(0)) outcomes.set(rcpt, probe);
  };
  while (queue.length > 0) {
    if (hooks.shouldStop?.()) break;
    const opened = await openFirst(addresses, o);
    if ('error' in opened) {
      giveUp(opened.error);
      break;
    }
    sessions++;
    const s = opened.session;
    let end: SessionEnd;
    try {
      end = await runSession(s, queue, outcomes, o, hooks);
    } catch (e) {
      end =
        e instanceof Timeout ? { kind: 'failed', probe: 'timeout' } : { kind: 'dropped', detail: String(e) };
    } finally {
      await s.close();
    }
    pipelining = s.pipelining;
    if (end.kind === 'stopped') break;
    if (end.kind === 'failed') {
      giveUp(end.probe);
      break;
    }
    if (end.kind === 'dropped' && ++drops > o.maxReconnects) {
      giveUp('unreachable');
      break;
    }
  }
  return { outcomes, unfinished: queue, sessions, pipelining };
}

async function openFirst(
  addresses: readonly string[],
  o: BatchSessionOptions,
): Promise<Awaited<ReturnType<typeof Session.open>>> {
  let last: Awaited<ReturnType<typeof Session.open>> = { error: 'unreachable', detail: 'no address' };
  for (const address of addresses) {
    last = await Session.open(address, o);
    if ('session' in last) return last;
  }
  return last;
}
