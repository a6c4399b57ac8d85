// The one address a cell or request holds, found the same way for the single-email endpoints and for
// bulk rows (the engine calls this at its entry), so one text gets one verdict everywhere.
//
// Rules (docs/validation.md, "What counts as the address"):
//   1. whitespace and invisible characters (zero-width space/joiners, word joiner, BOM) at either end go;
//   2. a `mailto:` prefix goes, and with it a `?query` after the address;
//   3. `Name <address>` / `"Name" <address>` / `<address>`: the text between the last `<` and a final `>`;
//   4. trailing `.` `,` `;` `:` (sentence punctuation after an address) go;
//   5. two or more addresses separated by `;` `,` or whitespace: no single address (null), which the
//      engine reports as invalid_syntax / multiple_addresses.
// Whitespace inside what remains is kept: the syntax check rejects it (`user@ example.com` is invalid).

/** Code points trimmed at either end besides the ASCII ones: see isTrimmable. */
function isTrimmable(c: number): boolean {
  return (
    c === 0x20 ||
    (c >= 0x09 && c <= 0x0d) ||
    c === 0x85 ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200d) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x2060 ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/** Sentence punctuation left after an address. */
function isTrailingPunctuation(c: number): boolean {
  return c === 0x2e /* . */ || c === 0x2c /* , */ || c === 0x3b /* ; */ || c === 0x3a; /* : */
}

/** A-Z a-z 0-9 and `]` (end of an IP literal): an address ending so needs no trailing clean-up. */
function isPlainEnd(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || c === 0x5d;
}

function trimEnds(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && isTrimmable(s.charCodeAt(start))) start++;
  while (end > start && isTrimmable(s.charCodeAt(end - 1))) end--;
  return start === 0 && end === s.length ? s : s.slice(start, end);
}

/** `mailto:` at the start, any case. */
function hasMailto(s: string): boolean {
  return s.length > 7 && s.charCodeAt(6) === 0x3a && s.slice(0, 6).toLowerCase() === 'mailto';
}

/** More than one address: at least two `@`, in parts split by `;` `,` or whitespace outside quotes. */
function holdsSeveral(s: string): boolean {
  let parts = 0;
  let partHasAt = false;
  let quoted = false;
  for (let i = 0; i <= s.length; i++) {
    const c = i === s.length ? 0x3b : s.charCodeAt(i);
    if (c === 0x22) quoted = !quoted;
    else if (c === 0x5c && quoted) i++;
    else if (!quoted && (c === 0x3b || c === 0x2c || isTrimmable(c))) {
      if (partHasAt) parts++;
      partHasAt = false;
    } else if (c === 0x40 && !quoted) partHasAt = true;
  }
  return parts >= 2;
}

/**
 * The address a cell holds; null when it holds several. Never throws. Plain addresses (the bulk hot
 * path) come back as the same string without any allocation.
 */
export function extractAddress(cell: string): string | null {
  const n = cell.length;
  if (n === 0) return cell;
  const first = cell.charCodeAt(0);
  // Fast path: printable ASCII first (not < or "), a plain last character, no mailto:, a single "@".
  if (
    first > 0x20 &&
    first < 0x7f &&
    first !== 0x3c /* < */ &&
    first !== 0x22 /* " */ &&
    isPlainEnd(cell.charCodeAt(n - 1)) &&
    !(n > 7 && cell.charCodeAt(6) === 0x3a) &&
    cell.indexOf('@', cell.indexOf('@') + 1) < 0
  )
    return cell;
  return extractSlow(cell);
}

/**
 * lastIndexOf('@'), by indexOf: V8 runs String.prototype.lastIndexOf in its runtime, several times
 * slower than indexOf on the short text of an address (the bulk hot path asks once a row).
 */
export function lastAtSign(s: string): number {
  let at = s.indexOf('@');
  if (at < 0) return at;
  for (let next = s.indexOf('@', at + 1); next >= 0; next = s.indexOf('@', at + 1)) at = next;
  return at;
}

/**
 * Whether extractAddress returns `cell` unchanged, for a cell that starts with a plain dot-atom local
 * part ending at the "@" at index `at` (plainLocalEnd, at > 0): then only the domain part needs looking
 * at (no second "@", a plain last character). The bulk hot path skips extraction's scans so.
 */
export function isOwnAddress(cell: string, at: number): boolean {
  return isPlainEnd(cell.charCodeAt(cell.length - 1)) && cell.indexOf('@', at + 1) < 0;
}

function extractSlow(cell: string): string | null {
  let s = trimEnds(cell);
  if (hasMailto(s)) {
    s = trimEnds(s.slice(7));
    const query = s.indexOf('?');
    if (query >= 0) s = s.slice(0, query);
  }
  // Name <address>: the last "<" opens the address when the cell ends with ">".
  if (s.endsWith('>')) {
    const open = s.lastIndexOf('<');
    if (open !== s.indexOf('<') && holdsSeveral(s)) return null;
    if (open >= 0) {
      s = trimEnds(s.slice(open + 1, -1));
      if (hasMailto(s)) s = trimEnds(s.slice(7));
    }
  }
  let end = s.length;
  while (end > 0 && (isTrailingPunctuation(s.charCodeAt(end - 1)) || isTrimmable(s.charCodeAt(end - 1))))
    end--;
  if (end < s.length) s = s.slice(0, end);
  if (s.indexOf('@') !== s.lastIndexOf('@') && holdsSeveral(s)) return null;
  return s;
}
