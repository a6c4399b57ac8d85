// Per-domain and per-local-part lists: disposable domains (mailchecker), free providers
// (email-providers), registrable domains (tldts), role accounts (role-based-email-addresses).
import { blacklist as disposableDomains } from 'mailchecker';
import freeProviders from 'email-providers/all.json';
import roleLocalParts from 'role-based-email-addresses';
import { getDomain } from 'tldts';
import { fnv1aLower } from './hash';

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
export const ABUSE_ROLES: ReadonlySet<string> = new Set([
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
/** Role local parts are short; longer ones skip the lookup on the hot path. */
const MAX_ROLE_LENGTH = Math.max(...[...roles].map((r) => r.length));

/** Hashes of every role: a miss (almost every address) is decided without building a string. */
const roleHashes = new Set<number>();
for (const r of roles) roleHashes.add(fnv1aLower(r, 0, r.length));

export type RoleKind = 0 | 1 | 2;
export const NOT_ROLE: RoleKind = 0;
export const ROLE: RoleKind = 1;
export const ABUSE_ROLE: RoleKind = 2;

/** Classifies a dot-atom local part: lower-cased, "+tag" subaddress removed (abuse+x@ is abuse@). */
export function roleKindOf(local: string): RoleKind {
  return roleKindOfRange(local, 0, local.length);
}

/** roleKindOf for s[start, end). */
export function roleKindOfRange(s: string, start: number, end: number): RoleKind {
  let stop = end;
  for (let i = start; i < end; i++) {
    if (s.charCodeAt(i) === 0x2b /* + */) {
      stop = i;
      break;
    }
  }
  const len = stop - start;
  if (len === 0 || len > MAX_ROLE_LENGTH) return NOT_ROLE;
  if (!roleHashes.has(fnv1aLower(s, start, stop))) return NOT_ROLE;
  const key = s.slice(start, stop).toLowerCase();
  if (ABUSE_ROLES.has(key)) return ABUSE_ROLE;
  return roles.has(key) ? ROLE : NOT_ROLE;
}
