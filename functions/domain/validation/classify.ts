// The synchronous per-address verdict, given the domain's cached verdict: syntax of the local part,
// lengths, roles, list flags and (single-email path) the mailbox probe. The bulk hot path: no I/O,
// no regular expressions, no allocation (ranges are checked and hashed in place).
import { ABUSE_ROLE, NOT_ROLE, ROLE, roleKindOf, roleKindOfRange } from './lists';
import {
  LOCAL_OCTETS,
  LOCAL_QUOTED,
  LOCAL_UNICODE,
  checkLocalPart,
  checkLocalPartRange,
  localError,
  type SyntaxErrorCode,
} from './syntax';
import type { DomainVerdict, KnownFlags, MailboxProbe, Verdict } from './types';
import { verdict } from './verdicts';

// The hot path calls these through module-local bindings: tsx/esbuild CommonJS output reads imported
// functions through export getters on every call, which costs more than the checks themselves.
const checkRange = checkLocalPartRange;
const roleOf = roleKindOfRange;
const OCTETS = LOCAL_OCTETS;
const QUOTED = LOCAL_QUOTED;
const UNICODE = LOCAL_UNICODE;
const NOT_A_ROLE = NOT_ROLE;
const A_ROLE = ROLE;
const AN_ABUSE_ROLE = ABUSE_ROLE;

export const V = {
  blank: verdict('blank'),
  missingAt: verdict('invalid_syntax', 'missing_at'),
  addressTooLong: verdict('invalid_syntax', 'address_too_long'),
  multipleAddresses: verdict('invalid_syntax', 'multiple_addresses'),
  domainNotResolved: verdict('domain_not_resolved'),
  complainer: verdict('known_complainer'),
  abuseRole: verdict('role_abuse'),
  knownDead: verdict('known_dead'),
  knownDeadBounces: verdict('known_dead_non_catch_all'),
  notFound: verdict('mailbox_not_found'),
  disabled: verdict('mailbox_disabled'),
  notFoundCatchAll: verdict('mailbox_not_found_catch_all'),
  full: verdict('mailbox_full'),
  greylisted: verdict('greylisted'),
  smtpTimeout: verdict('smtp_timeout'),
  quoted: verdict('quoted_local_part'),
  smtputf8: verdict('smtputf8_local_part'),
  role: verdict('role_account'),
  accepted: verdict('accepted'),
  unverifiable: verdict('domain_ok', 'mailbox_unverifiable'),
  validationError: verdict('validation_error'),
} as const;

export function syntaxVerdict(code: SyntaxErrorCode | string): Verdict {
  return verdict('invalid_syntax', code);
}

const LOCAL_VERDICTS = [-1, -2, -3, -4].map((c) => syntaxVerdict(localError(c)));

/** Whitespace at either end: the hot path trims only then (String.prototype.trim allocates). */
function needsTrim(s: string): boolean {
  const a = s.charCodeAt(0);
  const b = s.charCodeAt(s.length - 1);
  return a <= 0x20 || b <= 0x20 || a >= 0x80 || b >= 0x80;
}

function trimForClassify(address: string): string {
  return address.length > 0 && needsTrim(address) ? address.trim() : address;
}

/** The per-address facts the result body reports beside the verdict. */
export interface LocalFacts {
  localPart: string;
  isRoleAccount: boolean;
  isAbuseRole: boolean;
}

export function localFactsOf(address: string): LocalFacts {
  const at = address.lastIndexOf('@');
  const localPart = at < 0 ? address : address.slice(0, at);
  const code = checkLocalPart(localPart);
  const kind = code < 0 || (code & LOCAL_QUOTED) !== 0 ? NOT_ROLE : roleKindOf(localPart);
  return { localPart, isRoleAccount: kind !== NOT_ROLE, isAbuseRole: kind === ABUSE_ROLE };
}

/**
 * The verdict for one address (trimmed by the caller, or raw: ends are trimmed here when needed).
 * Precedence: blank, syntax, domain existence, disposable, complainer and abuse roles, known dead,
 * inconclusive DNS, mailbox probe, quoted / SMTPUTF8 local parts, other roles, safe.
 */
export function classifyLocal(
  rawAddress: string,
  domain: DomainVerdict | undefined,
  known?: KnownFlags,
  probe?: MailboxProbe,
): Verdict {
  const address = trimForClassify(rawAddress);
  if (address.length === 0) return V.blank;
  const at = address.lastIndexOf('@');
  if (at < 0) return V.missingAt;
  return classifyParts(address, at, domain, known, probe);
}

/**
 * The common case of the hot path: a plain ASCII dot-atom local part, then "@". The pattern is linear
 * (the dot separates the repetitions, so no character can be matched two ways: no backtracking blow-up)
 * and runs as native code, faster than a JavaScript loop. Everything it does not accept (quoted,
 * UTF-8, invalid) goes through the byte-level checker, which also names the error.
 */
const PLAIN_LOCAL = /[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@/y;

/** The "@" after a plain local part at the start of address, or -1 (then use classifyLocal). */
export function plainLocalEnd(address: string): number {
  PLAIN_LOCAL.lastIndex = 0;
  return PLAIN_LOCAL.test(address) ? PLAIN_LOCAL.lastIndex - 1 : -1;
}

/** A probe outcome that refuses the mailbox itself (a verdict even on a catch-all domain). */
const refusesMailbox = (probe: MailboxProbe) =>
  probe === 'not_found' || probe === 'disabled' || probe === 'full';

/** classifyLocal for a trimmed address whose last "@" is at index at (the engine has found it already). */
export function classifyParts(
  address: string,
  at: number,
  domain: DomainVerdict | undefined,
  known: KnownFlags | undefined,
  probe: MailboxProbe | undefined,
  /** checkLocalPart's result when the caller knows it (plain local part: at * OCTETS). */
  localCode?: number,
): Verdict {
  const code = localCode ?? checkRange(address, 0, at);
  if (code < 0) return LOCAL_VERDICTS[-code - 1] ?? V.validationError;
  if (domain === undefined) return V.domainNotResolved;
  const v = domain.verdicts;
  // a syntax error of the domain part outranks everything the domain could otherwise say
  if (domain.syntaxError !== null && v.gate !== null) return v.gate;
  if ((code - (code % OCTETS)) / OCTETS + 1 + domain.name.length > 254) return V.addressTooLong;
  if (v.gate !== null) return v.gate;
  const role = (code & QUOTED) !== 0 ? NOT_A_ROLE : roleOf(address, 0, at);
  if (known !== undefined) {
    if (known.complainer) return V.complainer;
    if (role === AN_ABUSE_ROLE) return V.abuseRole;
    if (known.dead) return domain.isCatchAll === false ? V.knownDeadBounces : V.knownDead;
  } else if (role === AN_ABUSE_ROLE) return V.abuseRole;
  if (v.risk !== null) return v.risk;
  // on a catch-all domain only an explicit refusal of the address itself says something: its other
  // outcomes (accepted, greylisted, a timeout) leave the catch-all verdict
  if (probe !== undefined && (domain.isCatchAll !== true || refusesMailbox(probe))) {
    switch (probe) {
      case 'not_found':
        // the server refused this address itself: mail to it bounces, catch-all domain or not
        return V.notFound;
      case 'disabled':
        return V.disabled;
      case 'full':
        return V.full;
      case 'greylisted':
        return V.greylisted;
      case 'timeout':
        return V.smtpTimeout;
      default:
        // accepted, or the probe could not tell (unreachable, policy block, proxy failure, accept-all
        // provider): the DNS verdict stands
        break;
    }
  } else if (v.smtpRisk !== null) return v.smtpRisk;
  if ((code & QUOTED) !== 0) return V.quoted;
  if ((code & UNICODE) !== 0) return V.smtputf8;
  if (role === A_ROLE) return V.role;
  if (probe === 'accepted' && domain.isCatchAll !== true) return V.accepted;
  // the provider accepts every recipient at RCPT time: safe by DNS, but never reported as verified
  if (probe === 'unverifiable') return V.unverifiable;
  return v.ok;
}
