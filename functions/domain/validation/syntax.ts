// RFC 5321/5322 address syntax, byte by byte: no regular expressions, so no catastrophic
// backtracking and millions of addresses per second on the bulk hot path.
import { domainToASCII, domainToUnicode } from 'node:url';
import ipaddr from 'ipaddr.js';

export type SyntaxErrorCode =
  | 'missing_at'
  | 'empty_local_part'
  | 'local_part_too_long'
  | 'address_too_long'
  | 'invalid_local_part'
  | 'invalid_quoted_local_part'
  | 'missing_domain'
  | 'invalid_domain'
  | 'domain_label_too_long'
  | 'domain_too_long'
  | 'single_label_domain'
  | 'numeric_tld'
  | 'single_letter_tld'
  | 'multiple_addresses'
  | 'invalid_ip_literal'
  | 'invalid_idn';

/** Error codes of checkLocalPart, as negative numbers so the success path returns a plain number. */
const LOCAL_ERRORS: readonly SyntaxErrorCode[] = [
  'empty_local_part',
  'local_part_too_long',
  'invalid_local_part',
  'invalid_quoted_local_part',
];
export const LOCAL_QUOTED = 1;
export const LOCAL_UNICODE = 2;
/** checkLocalPart packs octets * LOCAL_OCTETS + flags into one number. */
export const LOCAL_OCTETS = 4;

/** atext of RFC 5322 3.2.3: ALPHA / DIGIT / "!#$%&'*+-/=?^_`{|}~" (ASCII only; UTF-8 handled apart). */
const ATEXT = new Uint8Array(128);
for (let c = 0x30; c <= 0x39; c++) ATEXT[c] = 1;
for (let c = 0x41; c <= 0x5a; c++) ATEXT[c] = 1;
for (let c = 0x61; c <= 0x7a; c++) ATEXT[c] = 1;
for (const ch of "!#$%&'*+-/=?^_`{|}~") ATEXT[ch.charCodeAt(0)] = 1;

/**
 * Non-ASCII code units that are never part of a mailbox name: C1 controls, Unicode spaces and the
 * invisible format characters (soft hyphen, zero-width and bidi controls) that copy-paste leaves behind.
 */
function isForbiddenNonAscii(c: number): boolean {
  return (
    c <= 0xa0 ||
    c === 0xad ||
    c === 0x061c ||
    c === 0x1680 ||
    c === 0x180e ||
    (c >= 0x2000 && c <= 0x200f) ||
    (c >= 0x2028 && c <= 0x202f) ||
    (c >= 0x205f && c <= 0x206f) ||
    c === 0x3000 ||
    c === 0xfeff ||
    (c >= 0xfff0 && c <= 0xfffb)
  );
}

/**
 * Checks a local part: a dot-atom, or a quoted string (RFC 5321 4.1.2), UTF-8 allowed (RFC 6531).
 * Returns a negative error index (see localError) or octets * LOCAL_OCTETS + flags.
 */
export function checkLocalPart(local: string): number {
  return checkLocalPartRange(local, 0, local.length);
}

/** checkLocalPart on address[start, end) without slicing it out (the hot path saves the copy). */
export function checkLocalPartRange(local: string, start: number, n: number): number {
  if (n === start) return -1;
  let octets = 0;
  let flags = 0;
  if (local.charCodeAt(start) === 0x22 /* " */) {
    if (n - start < 3 || local.charCodeAt(n - 1) !== 0x22) return -4;
    flags = LOCAL_QUOTED;
    octets = 2;
    for (let i = start + 1; i < n - 1; i++) {
      const c = local.charCodeAt(i);
      if (c === 0x5c /* \ */) {
        const next = local.charCodeAt(++i);
        // quoted-pair: "\" followed by a printable ASCII character or space
        if (!(next >= 0x20 && next <= 0x7e) || i >= n - 1) return -4;
        octets += 2;
      } else if (c < 0x80) {
        // qtextSMTP: %d32-33 / %d35-91 / %d93-126
        if (c < 0x20 || c === 0x22 || c === 0x7f) return -4;
        octets++;
      } else {
        const u = unicodeOctets(local, i);
        if (u === 0) return -4;
        if (u === 4) i++;
        octets += u;
        flags |= LOCAL_UNICODE;
      }
    }
  } else {
    let prevDot = true; // a leading dot is as wrong as a double dot
    for (let i = start; i < n; i++) {
      const c = local.charCodeAt(i);
      if (c < 0x80) {
        if (c === 0x2e /* . */) {
          if (prevDot) return -3;
          prevDot = true;
        } else if (ATEXT[c] === 1) prevDot = false;
        else return -3;
        octets++;
      } else {
        const u = unicodeOctets(local, i);
        if (u === 0) return -3;
        if (u === 4) i++;
        octets += u;
        flags |= LOCAL_UNICODE;
        prevDot = false;
      }
    }
    if (prevDot) return -3; // trailing dot
  }
  if ((flags & LOCAL_UNICODE) !== 0) {
    octets = unicodeLocalOctets(local.slice(start, n), (flags & LOCAL_QUOTED) !== 0);
    if (octets < 0) return octets;
  }
  if (octets > 64) return -2;
  return octets * LOCAL_OCTETS + flags;
}

const LEADING_MARK = /^\p{M}/u;
const PRIVATE_OR_NONCHARACTER = /[\p{Co}\p{Noncharacter_Code_Point}]/u;

/**
 * A local part with non-ASCII characters (RFC 6531), normalised to NFC before its length is counted.
 * It may not start with a combining mark nor hold private-use characters or noncharacters.
 * Returns its UTF-8 octets in NFC, or checkLocalPart's negative error.
 */
function unicodeLocalOctets(local: string, quoted: boolean): number {
  const nfc = local.normalize('NFC');
  const error = quoted ? -4 : -3;
  if (LEADING_MARK.test(quoted ? nfc.slice(1) : nfc)) return error;
  if (PRIVATE_OR_NONCHARACTER.test(nfc)) return error;
  return Buffer.byteLength(nfc, 'utf8');
}

/** UTF-8 length of the code point at i (4 for a surrogate pair), or 0 when it is not allowed. */
function unicodeOctets(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c >= 0xd800 && c <= 0xdbff) {
    const d = s.charCodeAt(i + 1);
    return d >= 0xdc00 && d <= 0xdfff ? 4 : 0;
  }
  if (c >= 0xdc00 && c <= 0xdfff) return 0; // lone low surrogate
  if (isForbiddenNonAscii(c)) return 0;
  return c < 0x800 ? 2 : 3;
}

export function localError(code: number): SyntaxErrorCode {
  return LOCAL_ERRORS[-code - 1] ?? 'invalid_local_part';
}

/** A domain part after normalisation: its ASCII form, or why it is not a mail domain. */
export interface DomainSyntax {
  /** A-label form, lower case ("" when the domain could not be converted). */
  ascii: string;
  /** U-label form for display. */
  unicode: string;
  error: SyntaxErrorCode | null;
  ipLiteral: boolean;
}

/** Normalises and checks a domain part (UTS-46 for IDNs). Called once per distinct domain, then cached. */
export function parseDomain(raw: string): DomainSyntax {
  if (raw.length === 0) return { ascii: '', unicode: '', error: 'missing_domain', ipLiteral: false };
  if (raw.charCodeAt(0) === 0x5b /* [ */) return parseIpLiteral(raw);
  let ascii = raw;
  let nonAscii = false;
  let upper = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c >= 0x80) nonAscii = true;
    else if (c >= 0x41 && c <= 0x5a) upper = true;
  }
  if (nonAscii || raw.includes('xn--') || raw.includes('XN--')) {
    // UTS-46 mapping (full-width dots, case folding) and punycode validation
    ascii = domainToASCII(raw);
    if (ascii === '') return { ascii: '', unicode: raw, error: 'invalid_idn', ipLiteral: false };
  } else if (upper) ascii = raw.toLowerCase();
  const error = checkDomainLabels(ascii);
  const unicode = error === null && ascii.includes('xn--') ? domainToUnicode(ascii) || ascii : ascii;
  if (error === null && unicode !== ascii && !idna2008Labels(unicode))
    return { ascii, unicode, error: 'invalid_idn', ipLiteral: false };
  return { ascii, unicode, error, ipLiteral: false };
}

/**
 * IDNA2008 (RFC 5892) on the U-labels UTS-46 produced: letters, digits and marks (PVALID), the
 * contextual characters (CONTEXTJ/CONTEXTO, whose context UTS-46 and the registries check) and the
 * RFC 5892 exceptions; symbols and punctuation such as `©` `€` `£` `¡` are not valid in domain names.
 * UTS-46 has already mapped width and case, so an upper-case letter cannot remain.
 */
const IDNA2008_LETTER_DIGIT_MARK = /^[\p{Ll}\p{Lo}\p{Lm}\p{Nd}\p{Mn}\p{Mc}]$/u;
const COMBINING_MARK = /^\p{M}$/u;
/** Hyphen, dot, and the CONTEXTJ / CONTEXTO / PVALID exceptions of RFC 5892 outside those categories. */
const IDNA2008_ALSO_VALID = new Set([
  0x2d, 0x2e, 0xb7, 0x375, 0x5f3, 0x5f4, 0x6fd, 0x6fe, 0xf0b, 0x200c, 0x200d, 0x3007, 0x30fb,
]);
/** RFC 5892 DISALLOWED exceptions inside those categories. */
const IDNA2008_DISALLOWED = new Set([
  0x640, 0x7fa, 0x302e, 0x302f, 0x3031, 0x3032, 0x3033, 0x3034, 0x3035, 0x303b,
]);

function idna2008Labels(unicode: string): boolean {
  let labelStart = true;
  for (const ch of unicode) {
    const c = ch.codePointAt(0)!;
    if (c < 0x80 && c !== 0x2e) {
      labelStart = false;
      continue; // ASCII: LDH rules are checked on the A-label form
    }
    if (IDNA2008_DISALLOWED.has(c)) return false;
    if (!IDNA2008_ALSO_VALID.has(c) && !IDNA2008_LETTER_DIGIT_MARK.test(ch)) return false;
    if (labelStart && COMBINING_MARK.test(ch)) return false;
    labelStart = c === 0x2e;
  }
  return true;
}

/** LDH labels of 1..63 octets, at least two of them, at most 253 octets, a TLD of two or more characters that is not all digits. */
function checkDomainLabels(d: string): SyntaxErrorCode | null {
  if (d.length > 253) return 'domain_too_long';
  let labelStart = 0;
  let labels = 0;
  let allDigits = true;
  for (let i = 0; i <= d.length; i++) {
    const c = i === d.length ? 0x2e : d.charCodeAt(i);
    if (c === 0x2e) {
      const len = i - labelStart;
      if (len === 0) return 'invalid_domain';
      if (len > 63) return 'domain_label_too_long';
      if (d.charCodeAt(labelStart) === 0x2d || d.charCodeAt(i - 1) === 0x2d) return 'invalid_domain';
      labels++;
      if (i < d.length) {
        labelStart = i + 1;
        allDigits = true;
      }
    } else if (c >= 0x30 && c <= 0x39) {
      // digits keep allDigits as it is
    } else if ((c >= 0x61 && c <= 0x7a) || c === 0x2d) allDigits = false;
    else return 'invalid_domain';
  }
  if (labels < 2) return 'single_label_domain';
  if (allDigits) return 'numeric_tld';
  if (d.length - labelStart === 1) return 'single_letter_tld';
  return null;
}

/** [1.2.3.4] or [IPv6:...] (RFC 5321 4.1.3): valid syntax, but a risk (see docs/validation.md). */
function parseIpLiteral(raw: string): DomainSyntax {
  const bad: DomainSyntax = { ascii: '', unicode: raw, error: 'invalid_ip_literal', ipLiteral: true };
  if (raw.length < 3 || raw.charCodeAt(raw.length - 1) !== 0x5d) return bad;
  const inner = raw.slice(1, -1);
  if (inner.slice(0, 5).toLowerCase() === 'ipv6:') {
    const v6 = inner.slice(5);
    if (!ipaddr.IPv6.isValid(v6) || v6.includes('%')) return bad;
    const ascii = `[IPv6:${ipaddr.IPv6.parse(v6).toString()}]`;
    return { ascii, unicode: ascii, error: null, ipLiteral: true };
  }
  if (!ipaddr.IPv4.isValidFourPartDecimal(inner)) return bad;
  return { ascii: raw, unicode: raw, error: null, ipLiteral: true };
}

/** The whole-address syntax verdict, for callers outside the hot path (docs, tests, endpoints). */
export interface SyntaxResult {
  valid: boolean;
  error: SyntaxErrorCode | null;
  localPart: string;
  domain: string;
  quoted: boolean;
  unicodeLocalPart: boolean;
  ipLiteral: boolean;
}

/** Checks an already normalised address (see normalizeEmail): local part, domain and lengths. */
export function checkSyntax(address: string): SyntaxResult {
  const at = address.lastIndexOf('@');
  const result: SyntaxResult = {
    valid: false,
    error: null,
    localPart: at < 0 ? address : address.slice(0, at),
    domain: at < 0 ? '' : address.slice(at + 1),
    quoted: false,
    unicodeLocalPart: false,
    ipLiteral: false,
  };
  if (at < 0) return { ...result, error: 'missing_at' };
  const dom = parseDomain(result.domain);
  result.domain = dom.ascii || result.domain;
  result.ipLiteral = dom.ipLiteral;
  const local = checkLocalPart(result.localPart);
  if (local < 0) return { ...result, error: localError(local) };
  result.quoted = (local & LOCAL_QUOTED) !== 0;
  result.unicodeLocalPart = (local & LOCAL_UNICODE) !== 0;
  if (dom.error) return { ...result, error: dom.error };
  if (Math.floor(local / LOCAL_OCTETS) + 1 + dom.ascii.length > 254)
    return { ...result, error: 'address_too_long' };
  return { ...result, valid: true };
}
