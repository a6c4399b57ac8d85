// What one SMTP reply means, read the way the big providers and the published bounce classifiers read
// it (the table and its sources: smtp-reply-rules.ts; in words: docs/validation.md).
import {
  ENHANCED_RULES,
  PROVIDER_RULES,
  TEXT_RULES,
  WEAK_TEXT_RULES,
  meaningOfBasicCode,
  type ReplyMeaning,
  type TextRule,
} from './smtp-reply-rules';
import type { MailboxProbe, SmtpReply } from './types';

export type { ReplyMeaning } from './smtp-reply-rules';
export type { SmtpReply } from './types';

/** Where in the conversation a reply came: only a reply to RCPT TO can speak about the mailbox. */
export type ReplyStage = 'greeting' | 'ehlo' | 'mail' | 'rcpt';

const ENHANCED = /^([245])\.(\d{1,3})\.(\d{1,3})(?=$|[\s;:,.)\]-])/;
/** qmail and some appliances put the enhanced code last, in brackets: "... (#5.1.1)". */
const TRAILING_ENHANCED = /\(#([245]\.\d{1,3}\.\d{1,3})\)\s*$/;

/** Parses the lines of one reply ("550-5.1.1 first", "550 5.1.1 last"). */
export function parseReply(lines: readonly string[]): SmtpReply {
  const last = lines[lines.length - 1] ?? '';
  const code = Number.parseInt(last.slice(0, 3), 10);
  // each line of a multi-line reply repeats the enhanced code (RFC 2034): keep it once
  let enhanced: string | null = null;
  const parts = lines.map((l) => {
    let t = l.slice(4).trim();
    const m = ENHANCED.exec(t);
    if (m) {
      enhanced ??= m[0];
      if (m[0] === enhanced) t = t.slice(m[0].length).trim();
    }
    return t;
  });
  const text = parts.filter((t) => t.length > 0).join(' ');
  if (enhanced === null) enhanced = TRAILING_ENHANCED.exec(text)?.[1] ?? null;
  return { code: Number.isFinite(code) ? code : 0, enhanced, text };
}

function ruleApplies(rule: TextRule, reply: SmtpReply, cls: number): boolean {
  if (rule.classes && !rule.classes.includes(cls as 4 | 5)) return false;
  if (rule.enhanced && (reply.enhanced === null || !rule.enhanced.test(reply.enhanced))) return false;
  return rule.text.test(reply.text);
}

const firstMatch = (rules: readonly TextRule[], reply: SmtpReply, cls: number) =>
  rules.find((r) => ruleApplies(r, reply, cls))?.meaning;

/**
 * The meaning of a reply to RCPT TO. Order: 2xx accepted; 421 temporary (the server is closing the
 * channel); provider rules (code and text together); texts that override any code; the enhanced code;
 * generic words; the basic code.
 */
function readRcptReply(reply: SmtpReply): ReplyMeaning {
  const { code } = reply;
  if (code >= 200 && code < 300) return 'accepted';
  if (code === 421) return 'temporary';
  const cls = Math.floor(code / 100);
  if (cls !== 4 && cls !== 5) return 'about_us';
  const decided = firstMatch(PROVIDER_RULES, reply, cls) ?? firstMatch(TEXT_RULES, reply, cls);
  if (decided) return decided;
  // an enhanced code whose class contradicts the basic code (a "550 4.x.x") is not trusted
  if (reply.enhanced !== null && reply.enhanced[0] === String(cls)) {
    const byCode = ENHANCED_RULES.find((r) => r.code.test(reply.enhanced!));
    if (byCode) return byCode.meaning;
  }
  return firstMatch(WEAK_TEXT_RULES, reply, cls) ?? meaningOfBasicCode(code);
}

/**
 * The meaning of any reply at its stage. Before RCPT nothing is about the mailbox: a refusal of the
 * greeting, EHLO or MAIL FROM is about us (our IP, HELO name or sender), unless it is temporary.
 */
export function readReply(reply: SmtpReply, stage: ReplyStage): ReplyMeaning {
  const meaning = readRcptReply(reply);
  if (stage === 'rcpt' || meaning === 'accepted' || meaning === 'temporary' || meaning === 'about_us')
    return meaning;
  return 'about_us';
}

/** The probe outcome of a reply's meaning. */
export function probeOfMeaning(meaning: ReplyMeaning): MailboxProbe {
  switch (meaning) {
    case 'accepted':
      return 'accepted';
    case 'not_found':
      return 'not_found';
    case 'disabled':
      return 'disabled';
    case 'full':
      return 'full';
    case 'temporary':
      return 'greylisted';
    case 'about_us':
      return 'blocked';
  }
}

/** What one RCPT reply says about the mailbox. */
export function classifyRcpt(reply: SmtpReply): MailboxProbe {
  return probeOfMeaning(readRcptReply(reply));
}

/**
 * The reply as the single result reports it: text on one line, at most 200 characters; null for a
 * line that was no reply at all (no three-digit code).
 */
export function replyForResult(reply: SmtpReply): SmtpReply | null {
  if (reply.code < 100 || reply.code > 599) return null;
  // control characters (a reply is Latin-1 text from a stranger) become spaces
  const oneLine = [...reply.text]
    .map((ch) => (ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f ? ' ' : ch))
    .join('')
    .replace(/\s+/g, ' ')
    .trim();
  return { code: reply.code, enhanced: reply.enhanced, text: oneLine.slice(0, 200) };
}

/** subStatus of a verdict decided by a reply: the server's enhanced code, else its basic code. */
export function subStatusOf(reply: SmtpReply): string {
  return reply.enhanced ?? String(reply.code);
}

/** What a refusal about the session, not the address, asks of the prober (smtp-session.ts). */
export type SessionRefusal =
  /** Too many connections or sessions from us: fewer at once. */
  | 'connections'
  /** Too many (bad) recipients or errors in this session: fewer RCPT per session. */
  | 'recipients'
  /** The server is closing the channel (421) for a reason of its own: a new session later. */
  | 'closing';

const TOO_MANY_CONNECTIONS =
  /too many (concurrent )?(connections|sessions|smtp connections)|connection (count|rate) limit/i;
const TOO_MANY_BAD =
  /too many (bad|invalid|unknown|failed|rejected) (recipients|users|rcpts?|addresses)|too many errors|rejected for too many|too many recipients/i;

/**
 * Whether a reply speaks about the session rather than one address ("Rejected for too many bad
 * recipients" of Exim's default ACL, Postfix's "421 4.7.0 Error: too many errors" and anvil's "421
 * 4.7.0 Error: too many connections", any 421): the session ends, its untried and refused addresses are
 * asked again in a new one, and the host's limits are learnt (docs/validation.md, "Sessions that adapt").
 * At RCPT only after the session had answered some: the first RCPT refused so is read as usual.
 */
export function sessionRefusalOf(reply: SmtpReply): SessionRefusal | null {
  if (TOO_MANY_CONNECTIONS.test(reply.text)) return 'connections';
  if (TOO_MANY_BAD.test(reply.text)) return 'recipients';
  if (reply.code === 421) return 'closing';
  return null;
}
