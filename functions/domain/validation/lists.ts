// Per-domain and per-local-part lists: disposable domains (mailchecker), free providers
// (email-providers), registrable domains (tldts), role accounts (role-based-email-addresses).
import { blacklist as disposableDomains } from 'mailchecker';
import freeProviders from 'email-providers/all.json';
import roleLocalParts from 'role-based-email-addresses';
import { getDomain } from 'tldts';

const disposable = disposableDomains();
const free = new Set<string>(freeProviders);

/** True when the domain or one of its parent domains is a known disposable-mail domain. */
export function isDisposableDomain(domain: string): boolean {
  let d = domain;
  for (;;) {
    if (disposable.has(d)) return true;
    const dot = d.indexOf('.');
    if (dot < 0) return false;
    d = d.slice(dot + 1);
  }
}

export function isFreeProviderDomain(domain: string): boolean {
  return free.has(domain);
}

export function registrableDomainOf(domain: string): string | null {
  return getDomain(domain, { allowPrivateDomains: false });
}

/**
 * Mailboxes that receive complaints or feed blocklists: mailing them risks a spam report or a trap hit.
 * RFC 2142 names abuse, noc, security (network operations) and postmaster, hostmaster (infrastructure);
 * the rest are the spam-report and feedback-loop boxes that role lists carry. Our own decision, kept short.
 */
const ABUSE_ROLES: ReadonlySet<string> = new Set([
  'abuse',
  'arin-abuse',
  'ripe-abuse',
  'postmaster',
  'hostmaster',
  'noc',
  'inoc',
  'security',
  'spam',
  'nospam',
  'junk',
  'phish',
  'phishing',
  'complaints',
  'fbl',
  'ispfeedback',
  'spamtrap',
  'honeypot',
]);

/**
 * Entries of role-based-email-addresses we do not treat as roles: given names and surnames, and
 * two-letter entries that are more often a person's initials than a team (jd@, md@, pm@).
 */
const NOT_ROLES = new Set([
  'alexa',
  'gardner',
  'ap',
  'bd',
  'ca',
  'cm',
  'cs',
  'gm',
  'la',
  'lt',
  'md',
  'mt',
  'ny',
  'pd',
  'pm',
  'se',
  'sf',
  'ta',
  'uk',
  'us',
  'ux',
]);

const roles = new Set<string>();
for (const r of roleLocalParts as readonly string[]) if (!NOT_ROLES.has(r)) roles.add(r);
for (const r of ABUSE_ROLES) roles.add(r);
/** Role local parts are short; longer ones skip the lookup (and its slice) on the hot path. */
const MAX_ROLE_LENGTH = Math.max(...[...roles].map((r) => r.length));

export type RoleKind = 0 | 1 | 2;
export const NOT_ROLE: RoleKind = 0;
export const ROLE: RoleKind = 1;
export const ABUSE_ROLE: RoleKind = 2;

/** Classifies a dot-atom local part: lower-cased, "+tag" subaddress removed (abuse+x@ is abuse@). */
export function roleKindOf(local: string): RoleKind {
  return roleKindOfRange(local, 0, local.length);
}

/**
 * A bitmap of (first letter, second letter, length) over every role, letters folded to 5 bits (which
 * also folds case): almost every personal local part misses here without building a string.
 */
const ROLE_SHAPES = new Uint8Array(32 * 32 * 64);
const shapeOf = (s: string, start: number, len: number): number =>
  (((s.charCodeAt(start) & 0x1f) << 11) | ((s.charCodeAt(start + 1) & 0x1f) << 6) | len) & 0xffff;
for (const r of roles) ROLE_SHAPES[shapeOf(r, 0, r.length)] = 1;

/**
 * Every role by fnv1a of its name (role names are lower-case ASCII), chained on collisions: a local part
 * is looked up by hashing it in place, lower-cased as it goes, without building a string.
 */
interface RoleEntry {
  name: string;
  kind: RoleKind;
  next: RoleEntry | undefined;
}
const ROLES_BY_HASH = new Map<number, RoleEntry>();
for (const r of roles) {
  const h = foldedHash(r, 0, r.length);
  ROLES_BY_HASH.set(h, { name: r, kind: ABUSE_ROLES.has(r) ? ABUSE_ROLE : ROLE, next: ROLES_BY_HASH.get(h) });
}

/** fnv1a (as hash.ts) of s[start, end) with A-Z lower-cased; -1 when the range holds a non-ASCII character. */
function foldedHash(s: string, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) {
    let c = s.charCodeAt(i);
    if (c >= 0x80) return -1;
    if (c >= 0x41 && c <= 0x5a) c |= 0x20;
    h = Math.imul(h ^ c, 0x01000193);
  }
  return h & 0x3fffffff;
}

/** Whether s[start, start + name.length) is name (lower-case ASCII) in any case. */
function equalsFolded(s: string, start: number, name: string): boolean {
  for (let i = 0; i < name.length; i++) {
    let c = s.charCodeAt(start + i);
    if (c >= 0x41 && c <= 0x5a) c |= 0x20;
    if (c !== name.charCodeAt(i)) return false;
  }
  return true;
}

/** roleKindOf for s[start, end), without allocating for an ASCII local part (the bulk hot path). */
export function roleKindOfRange(s: string, start: number, end: number): RoleKind {
  let stop = s.indexOf('+', start);
  if (stop < 0 || stop > end) stop = end;
  const len = stop - start;
  if (len === 0 || len > MAX_ROLE_LENGTH || ROLE_SHAPES[shapeOf(s, start, len)] !== 1) return NOT_ROLE;
  const h = foldedHash(s, start, stop);
  if (h < 0) return roleKindOfText(s.slice(start, stop));
  for (let e = ROLES_BY_HASH.get(h); e !== undefined; e = e.next) {
    if (e.name.length === len && equalsFolded(s, start, e.name)) return e.kind;
  }
  return NOT_ROLE;
}

/** A local part with non-ASCII characters: the role it reads as once lower-cased (String.toLowerCase). */
function roleKindOfText(text: string): RoleKind {
  let key = text;
  if (!roles.has(key)) {
    const lower = key.toLowerCase();
    if (lower === key || !roles.has(lower)) return NOT_ROLE;
    key = lower;
  }
  return ABUSE_ROLES.has(key) ? ABUSE_ROLE : ROLE;
}
