// Many recipients at one mail host over as few SMTP sessions as possible: connect, EHLO, STARTTLS when
// the server offers or requires it (then EHLO again), MAIL FROM once, then RCPT TO for each recipient
// (pipelined per RFC 2920 when the server offers PIPELINING), RSET and a new MAIL FROM when an envelope
// is full, QUIT after a number of recipients per session. A session the server drops costs a reconnect;
// the recipients it answered keep their answers. A refusal about the session ("too many bad
// recipients", "too many errors", 421, a hang-up after answers) ends it: the untried and refused
// recipients go to a new session with fewer RCPT, and what was learnt goes back to the host's
// politeness (docs/validation.md, "Sessions that adapt to the host"). Every reply is read by
// smtp-reply.ts, for the single endpoint and the bulk probe stage alike, so one address gets one
// verdict whichever way it came.
import type net from 'node:net';
import {
  probeOfMeaning,
  readReply,
  sessionRefusalOf,
  type ReplyStage,
  type SessionRefusal,
  type SmtpReply,
} from '../validation/smtp-reply';
import type { MailboxProbe } from '../validation/types';
import type { ProxyPool } from './proxy-pool';
import { ReplyReader, Timeout, TlsFailed, connectDirect, connectSocks, startTls } from './smtp-wire';

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
  /**
   * Sends every RCPT window: waits until RCPT may go, then calls `send(n)` once with how many (1..wanted)
   * go now; resolving without a call stops (the rest stays unfinished). Without it, windows go at once.
   */
  rcptWindow?(wanted: number, send: (n: number) => void): Promise<void>;
  /** True when the caller must stop opening sessions or sending RCPT (its deadline is near). */
  shouldStop?(): boolean;
}

export interface BatchOutcome {
  /** Outcome per recipient that got one. */
  outcomes: Map<string, RecipientProbe>;
  /**
   * The reply that decided each outcome that a reply decided: the RCPT reply, or the greeting, EHLO or
   * MAIL FROM refusal that ended the session for every recipient still waiting.
   */
  replies: Map<string, SmtpReply>;
  /** Recipients not tried (deadline, allowance): the caller hands them back. */
  unfinished: string[];
  sessions: number;
  /** Whether the server offered PIPELINING (last session). */
  pipelining: boolean;
  /** Whether the last session ran over TLS (STARTTLS). */
  tls: boolean;
  /** What the host taught: kept by the caller's politeness for the host (mx-politeness.ts). */
  learned: LearnedFromHost;
}

/** Limits a host showed by refusing a session. */
export interface LearnedFromHost {
  /** RCPT a session may carry without being refused. */
  rcptPerSession?: number;
  /** It refused a connection as one too many: fewer sessions at once. */
  fewerSessions?: boolean;
}

/** A refusal about the session once it had answered some RCPT, with what it had done before it. */
interface RefusedSession {
  kind: 'refused';
  why: SessionRefusal | 'hangup';
  /** RCPT answered in this session, and how many of those were refusals. */
  answered: number;
  failures: number;
}

/** Errors after which a session pipelines at most this many RCPT (replies slow down after errors). */
const erroredWindow = 3;
/** A pipelined reply is waited for one step per command ahead of it, up to this many steps. */
const maxStepsPerReply = 3;

type SessionEnd =
  | { kind: 'done' }
  /** The session cannot be used further: the remaining recipients get `probe`, or retry on reconnect. */
  | { kind: 'dropped'; detail: string }
  | { kind: 'stopped' }
  | { kind: 'failed'; probe: RecipientProbe; reply?: SmtpReply; tooManyConnections?: boolean }
  /** The TLS handshake failed: one more session without STARTTLS. */
  | { kind: 'tls_failed'; detail: string }
  | RefusedSession;

class Session {
  pipelining = false;
  startTls = false;
  secure = false;
  private constructor(
    private socket: net.Socket,
    private reader: ReplyReader,
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

  /** The next reply; `steps` step timeouts when that many pipelined commands are answered before it. */
  reply(steps = 1): Promise<SmtpReply> {
    return this.reader.next(this.timeoutMs * steps);
  }

  async command(line: string): Promise<SmtpReply> {
    this.socket.write(`${line}\r\n`);
    return this.reply();
  }

  write(lines: string[]): void {
    this.socket.write(lines.map((l) => `${l}\r\n`).join(''));
  }

  /** After the server's 220 to STARTTLS: the same conversation, now over TLS. */
  async upgrade(serverName: string | undefined): Promise<void> {
    this.reader.detach();
    const secure = await startTls(this.socket, serverName, this.timeoutMs);
    this.socket = secure;
    this.reader = new ReplyReader(secure);
    this.secure = true;
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

/** 452 4.5.3 (RFC 5321 4.5.3.1.10): too many recipients in this envelope, not a verdict on the mailbox. */
const tooManyRecipients = (r: SmtpReply) =>
  r.code === 452 && (r.enhanced === '4.5.3' || /too many recipients/i.test(r.text));

/** A refusal before RCPT: what it means at its stage (temporary or about us), with the reply. */
function refused(reply: SmtpReply, stage: ReplyStage): SessionEnd {
  const meaning = readReply(reply, stage);
  // a 2xx where another was expected (a 250 greeting) tells nothing
  return { kind: 'failed', probe: meaning === 'accepted' ? 'error' : probeOfMeaning(meaning), reply };
}

/** "530 5.7.0 Must issue a STARTTLS command first" and its kin (RFC 3207 4). */
const requiresTls = (r: SmtpReply) =>
  r.code === 530 || (r.code >= 500 && /starttls|tls required|must use tls|encryption required/i.test(r.text));

interface HandshakeContext {
  /** STARTTLS may be tried (false after a failed handshake with this host). */
  tlsAllowed: boolean;
  serverName: string | undefined;
}

async function hello(s: Session, o: BatchSessionOptions): Promise<SmtpReply> {
  let reply = await s.command(`EHLO ${o.heloName}`);
  // 421: the server is closing the channel, a HELO would meet a closed socket
  if (reply.code === 421) return reply;
  if (reply.code === 250) {
    s.pipelining = /(^|\s)PIPELINING(\s|$)/i.test(reply.text);
    s.startTls = /(^|\s)STARTTLS(\s|$)/i.test(reply.text);
  } else reply = await s.command(`HELO ${o.heloName}`);
  return reply;
}

/** STARTTLS, the handshake, EHLO again (RFC 3207 4.2: the server forgets what it knew). */
async function secure(s: Session, o: BatchSessionOptions, ctx: HandshakeContext): Promise<SessionEnd | null> {
  const go = await s.command('STARTTLS');
  if (go.code !== 220) return null; // refused: the session goes on in plain text
  try {
    await s.upgrade(ctx.serverName);
  } catch (e) {
    if (e instanceof TlsFailed) return { kind: 'tls_failed', detail: e.message };
    throw e;
  }
  const again = await hello(s, o);
  if (again.code !== 250) return refused(again, 'ehlo');
  return null;
}

/** Greeting, EHLO (HELO when refused), STARTTLS when offered, MAIL FROM: ready for RCPT, or why not. */
async function handshake(
  s: Session,
  o: BatchSessionOptions,
  ctx: HandshakeContext,
): Promise<SessionEnd | null> {
  const greeting = await s.reply();
  if (greeting.code < 200 || greeting.code >= 300) {
    // anvil's "421 4.7.0 Error: too many connections": retried as greylisting is, with one session
    // fewer at the host from now on
    const end = refused(greeting, 'greeting');
    if (end.kind === 'failed' && sessionRefusalOf(greeting) === 'connections') end.tooManyConnections = true;
    return end;
  }
  const hi = await hello(s, o);
  if (hi.code !== 250) return refused(hi, 'ehlo');
  if (s.startTls && ctx.tlsAllowed) {
    const end = await secure(s, o, ctx);
    if (end) return end;
  }
  return mailFrom(s, o, ctx);
}

async function mailFrom(
  s: Session,
  o: BatchSessionOptions,
  ctx: HandshakeContext,
): Promise<SessionEnd | null> {
  let from = await s.command(`MAIL FROM:<${o.mailFrom}>`);
  // a server that requires TLS without offering it in EHLO: STARTTLS anyway, then MAIL FROM again
  if (requiresTls(from) && !s.secure && ctx.tlsAllowed) {
    const end = await secure(s, o, ctx);
    if (end) return end;
    if (s.secure) from = await s.command(`MAIL FROM:<${o.mailFrom}>`);
  }
  if (from.code !== 250) return refused(from, 'mail');
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
  result: Pick<BatchOutcome, 'outcomes' | 'replies'>,
  o: BatchSessionOptions,
  hooks: BatchHooks,
  ctx: HandshakeContext,
): Promise<SessionEnd> {
  const ready = await handshake(s, o, ctx);
  if (ready) return ready;
  let inSession = 0;
  let inEnvelope = 0;
  let failures = 0;
  while (queue.length > 0 && inSession < o.maxRecipientsPerSession) {
    if (hooks.shouldStop?.()) return { kind: 'stopped' };
    if (inEnvelope >= o.maxRecipientsPerEnvelope) {
      const reset = await s.command('RSET');
      if (reset.code !== 250) return { kind: 'dropped', detail: `RSET ${reset.code}` };
      const again = await mailFrom(s, o, ctx);
      if (again) return again;
      inEnvelope = 0;
    }
    const room = Math.min(
      s.pipelining ? (failures >= erroredWindow ? erroredWindow : o.pipelineWindow) : 1,
      o.maxRecipientsPerSession - inSession,
      o.maxRecipientsPerEnvelope - inEnvelope,
      queue.length,
    );
    let window: string[] = [];
    const send = (n: number) => {
      window = queue.slice(0, Math.max(0, Math.min(room, n)));
      if (window.length > 0) s.write(window.map((rcpt) => `RCPT TO:<${rcpt}>`));
    };
    // the pacer writes the window in the same step as it reads the clock
    if (hooks.rcptWindow) await hooks.rcptWindow(room, send);
    else send(room);
    if (window.length === 0) return { kind: 'stopped' };
    let answered = 0;
    let envelopeFull = false;
    for (const [i, rcpt] of window.entries()) {
      let reply: SmtpReply;
      try {
        // a server may hold the replies of a pipelined window until it has answered the last (Postfix
        // does, and sleeps smtpd_error_sleep_time before each once a client made errors): each command
        // ahead of this one may take a step
        reply = await s.reply(Math.min(maxStepsPerReply, window.length - i));
      } catch (e) {
        // the server hung up after answering some: about the session (an error limit), not the rest
        if (!(e instanceof Timeout) && !envelopeFull && inSession + answered > 0)
          return { kind: 'refused', why: 'hangup', answered: inSession + answered, failures };
        if (!(e instanceof Timeout) || envelopeFull) throw e;
        // this recipient stalled the server past the step timeout: it is the one that timed out, the
        // rest of the batch goes on in a new session
        result.outcomes.set(rcpt, 'timeout');
        queue.shift();
        return { kind: 'dropped', detail: 'rcpt timeout' };
      }
      // "too many recipients" to the first RCPT of an envelope is not about the envelope's size: it is
      // this recipient's answer (a rate limit), else a fresh envelope would get it again, forever
      const firstOfEnvelope = inEnvelope === 0 && answered === 0;
      if (envelopeFull || (tooManyRecipients(reply) && !firstOfEnvelope)) {
        // the rest of this window is resent in a fresh envelope
        envelopeFull = true;
        continue;
      }
      // "Rejected for too many bad recipients", "421 too many errors" once the session answered some:
      // this recipient and the rest are asked again in a new session
      const why = inSession + answered > 0 ? sessionRefusalOf(reply) : null;
      if (why !== null) return { kind: 'refused', why, answered: inSession + answered, failures };
      // answered recipients are a prefix of the queue: taken off at once, so a drop keeps them
      result.outcomes.set(rcpt, probeOfMeaning(readReply(reply, 'rcpt')));
      result.replies.set(rcpt, reply);
      queue.shift();
      answered++;
      if (reply.code >= 400) failures++;
    }
    inSession += answered;
    inEnvelope = envelopeFull ? o.maxRecipientsPerEnvelope : inEnvelope + answered;
  }
  return { kind: 'done' };
}

/**
 * Probes `recipients` at the host reachable on `addresses` (tried in order); `serverName` is the MX
 * host's name, sent as TLS SNI. Never throws. Recipients left when the caller stops come back in
 * `unfinished`; every other recipient gets an outcome.
 */
export async function probeBatch(
  addresses: readonly string[],
  recipients: readonly string[],
  o: BatchSessionOptions,
  hooks: BatchHooks = {},
  serverName?: string,
): Promise<BatchOutcome> {
  const queue = [...new Set(recipients)];
  const result: BatchOutcome = {
    outcomes: new Map(),
    replies: new Map(),
    unfinished: queue,
    sessions: 0,
    pipelining: false,
    tls: false,
    learned: {},
  };
  const ctx: HandshakeContext = { tlsAllowed: true, serverName };
  let drops = 0;
  /** RCPT per session: lowered to what the host showed it takes. */
  let perSession = o.maxRecipientsPerSession;
  const giveUp = (probe: RecipientProbe, reply?: SmtpReply) => {
    for (const rcpt of queue.splice(0)) {
      result.outcomes.set(rcpt, probe);
      if (reply) result.replies.set(rcpt, reply);
    }
  };
  while (queue.length > 0) {
    if (hooks.shouldStop?.()) break;
    const opened = await openFirst(addresses, o);
    if ('error' in opened) {
      giveUp(opened.error);
      break;
    }
    result.sessions++;
    const s = opened.session;
    let end: SessionEnd;
    try {
      end = await runSession(s, queue, result, { ...o, maxRecipientsPerSession: perSession }, hooks, ctx);
    } catch (e) {
      end =
        e instanceof Timeout ? { kind: 'failed', probe: 'timeout' } : { kind: 'dropped', detail: String(e) };
    } finally {
      await s.close();
    }
    result.pipelining = s.pipelining;
    result.tls = s.secure;
    if (end.kind === 'stopped') break;
    if (end.kind === 'refused') {
      // "too many bad recipients" / "too many errors": a session takes no more refusals than that (no
      // more RCPT when none was refused); a hang-up or a plain 421 teaches nothing (a restart, a crash)
      if (end.why === 'recipients') {
        perSession = Math.max(1, Math.min(perSession, end.failures > 0 ? end.failures : end.answered));
        result.learned.rcptPerSession = perSession;
      }
      // the session made progress: the new one is no reconnect after a failure
      drops = 0;
      continue;
    }
    if (end.kind === 'failed') {
      if (end.tooManyConnections) result.learned.fewerSessions = true;
      giveUp(end.probe, end.reply);
      break;
    }
    if (end.kind === 'tls_failed') {
      // once: the next session stays in plain text (a server that requires TLS then refuses MAIL FROM)
      if (!ctx.tlsAllowed) {
        giveUp('unreachable');
        break;
      }
      ctx.tlsAllowed = false;
      continue;
    }
    if (end.kind === 'dropped' && ++drops > o.maxReconnects) {
      giveUp('unreachable');
      break;
    }
  }
  return result;
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
