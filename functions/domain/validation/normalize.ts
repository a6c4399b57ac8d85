// Input normalisation: trim, split at the last "@", IDN domain to ASCII (UTS-46), lower-case domain.
import { parseDomain } from './syntax';

export interface NormalizedEmail {
  /** local@ascii-domain (the local part keeps its case: RFC 5321 lets servers treat it as case-sensitive). */
  email: string;
  localPart: string;
  /** ASCII domain, or the raw domain when it could not be converted (syntax then reports why). */
  domain: string;
  unicodeDomain: string;
  hasAt: boolean;
}

/** Trims and normalises; never throws. A value without "@" comes back with hasAt false. */
export function normalizeEmail(raw: unknown): NormalizedEmail {
  const s = typeof raw === 'string' ? raw.trim() : '';
  const at = s.lastIndexOf('@');
  if (at < 0) return { email: s, localPart: s, domain: '', unicodeDomain: '', hasAt: false };
  const localPart = s.slice(0, at);
  const rawDomain = s.slice(at + 1);
  const d = parseDomain(rawDomain);
  const domain = d.ascii || rawDomain;
  return {
    email: `${localPart}@${domain}`,
    localPart,
    domain,
    unicodeDomain: d.unicode || rawDomain,
    hasAt: true,
  };
}

/** The raw domain part of an address as written (after the last "@", untrimmed: inner whitespace is a syntax error), for cache keys. */
export function rawDomainOf(raw: string): string {
  const at = raw.lastIndexOf('@');
  return at < 0 ? '' : raw.slice(at + 1);
}
