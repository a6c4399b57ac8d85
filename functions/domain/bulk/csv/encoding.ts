// Which text encoding an upload is in, and the byte view the CSV tokenizer reads.
//
// UTF-8 (BOM or not) first; UTF-16 LE/BE by BOM or by the NUL pattern of mostly-ASCII text; any other
// bytes go to `chardet`, whose answer is taken for the multi-byte East Asian encodings and non-Latin
// single-byte ones it is confident about, with Windows-1252 as the fallback (it decodes every byte and is
// what Excel writes for "CSV" on Western systems). Cells are decoded with `iconv-lite` for validation
// only; the results file keeps the original bytes and writes what it appends in the file's encoding.
import { isUtf8 } from 'node:buffer';
import chardet from 'chardet';
import iconv from 'iconv-lite';

/** `utf-8`, `utf-16le`, `utf-16be`, or an iconv-lite name (`windows-1252`, `shift_jis`, ...). */
export type TextEncoding = string;

const fallbackEncoding = 'windows-1252';

/** Bytes that hold one character of the tokenizer's view: 2 for UTF-16, else 1. */
export function unitBytes(encoding: TextEncoding): 1 | 2 {
  return encoding === 'utf-16le' || encoding === 'utf-16be' ? 2 : 1;
}

/** Encodings chardet names that we take its word for (lower-cased iconv-lite names). */
export const trustedEncodings: ReadonlySet<string> = new Set([
  'shift_jis',
  'euc-jp',
  'euc-kr',
  'gb18030',
  'big5',
  'windows-1251',
  'koi8-r',
  'iso-8859-5',
  'iso-8859-6',
  'iso-8859-7',
  'iso-8859-8',
  'windows-1253',
  'windows-1255',
  'windows-1256',
]);
/** chardet's confidence (0-100) needed to leave the Windows-1252 fallback. */
const minConfidence = 50;

/** The byte-order mark's length at the start of `bytes` for `encoding` (0 when absent). */
export function bomBytes(bytes: Uint8Array, encoding: TextEncoding): number {
  if (encoding === 'utf-8') return bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  if (encoding === 'utf-16le') return bytes[0] === 0xff && bytes[1] === 0xfe ? 2 : 0;
  if (encoding === 'utf-16be') return bytes[0] === 0xfe && bytes[1] === 0xff ? 2 : 0;
  return 0;
}

/** UTF-16 without a BOM: ASCII-heavy text has a NUL in every other byte. */
function utf16ByNuls(sample: Uint8Array): 'utf-16le' | 'utf-16be' | undefined {
  const n = Math.min(sample.length, 8192) & ~1;
  if (n < 4) return undefined;
  let even = 0;
  let odd = 0;
  for (let i = 0; i < n; i += 2) {
    if (sample[i] === 0) even++;
    if (sample[i + 1] === 0) odd++;
  }
  const pairs = n / 2;
  if (odd >= pairs * 0.3 && even <= pairs * 0.02) return 'utf-16le';
  if (even >= pairs * 0.3 && odd <= pairs * 0.02) return 'utf-16be';
  return undefined;
}

/** Valid UTF-8, allowing a sequence cut by the end of a sample that is not the whole file. */
function isUtf8Sample(sample: Buffer, wholeFile: boolean): boolean {
  if (isUtf8(sample)) return true;
  if (wholeFile) return false;
  // Drop an incomplete last sequence: a lead byte followed by fewer continuation bytes than it needs.
  for (let back = 1; back <= 3 && back <= sample.length; back++) {
    const b = sample[sample.length - back]!;
    if (b >= 0x80 && b < 0xc0) continue; // a continuation byte: look further back
    const needs = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return needs > back && isUtf8(sample.subarray(0, sample.length - back));
  }
  return false;
}

/** True when the sample holds a NUL byte (text files never do, except UTF-16/32). */
export function hasNul(bytes: Uint8Array): boolean {
  return bytes.indexOf(0) !== -1;
}

/**
 * The encoding of a file from its first bytes. UTF-16 is recognised by BOM or NUL pattern; otherwise a
 * sample with NUL bytes is not text (see not-text.ts, which runs first).
 */
export function detectEncoding(sample: Buffer, wholeFile: boolean): TextEncoding {
  if (bomBytes(sample, 'utf-8') > 0) return 'utf-8';
  if (bomBytes(sample, 'utf-16le') > 0) return 'utf-16le';
  if (bomBytes(sample, 'utf-16be') > 0) return 'utf-16be';
  const utf16 = utf16ByNuls(sample);
  if (utf16) return utf16;
  if (isUtf8Sample(sample, wholeFile)) return 'utf-8';
  const best = chardet.analyse(sample)[0];
  const name = best?.name.toLowerCase();
  if (
    best &&
    name &&
    best.confidence >= minConfidence &&
    trustedEncodings.has(name) &&
    iconv.encodingExists(name)
  )
    return name;
  return fallbackEncoding;
}

/** UTF-16 -> one byte per unit: ASCII units as themselves, every other unit as 0x80 (not special). */
function narrowUtf16(bytes: Uint8Array, bigEndian: boolean): Buffer {
  const units = bytes.length >> 1;
  const out = Buffer.allocUnsafe(units + (bytes.length & 1));
  const hi = bigEndian ? 0 : 1;
  const lo = bigEndian ? 1 : 0;
  for (let u = 0, i = 0; u < units; u++, i += 2) {
    const l = bytes[i + lo]!;
    out[u] = bytes[i + hi] === 0 && l < 0x80 ? l : 0x80;
  }
  if (bytes.length & 1) out[units] = 0x80; // a stray last byte: one more (non-special) unit
  return out;
}

/** The tokenizer's view of a whole buffer (a sample, a chunk): the bytes, or the narrowed UTF-16. */
export function unitView(bytes: Buffer, encoding: TextEncoding): Buffer {
  if (encoding === 'utf-16le') return narrowUtf16(bytes, false);
  if (encoding === 'utf-16be') return narrowUtf16(bytes, true);
  return bytes;
}

/** unitView over a stream of pieces: a unit split between two pieces waits for its second byte. */
export class UnitStream {
  private carry: number | undefined;
  private readonly wide: boolean;

  constructor(private readonly encoding: TextEncoding) {
    this.wide = unitBytes(encoding) === 2;
  }

  push(piece: Buffer): Buffer {
    if (!this.wide) return piece;
    let bytes = piece;
    if (this.carry !== undefined) {
      bytes = Buffer.concat([Buffer.from([this.carry]), piece]);
      this.carry = undefined;
    }
    if (bytes.length & 1) {
      this.carry = bytes[bytes.length - 1];
      bytes = bytes.subarray(0, bytes.length - 1);
    }
    return unitView(bytes, this.encoding);
  }

  /** A stray odd last byte of a UTF-16 file, as one unit. */
  finish(): Buffer {
    if (this.carry === undefined) return Buffer.alloc(0);
    this.carry = undefined;
    return Buffer.from([0x80]);
  }
}

/** A cell's bytes as text, for validation only. Invalid UTF-8 in a UTF-8 file reads as Windows-1252. */
export function decodeText(raw: Buffer, encoding: TextEncoding): string {
  if (encoding === 'utf-8') {
    const text = raw.toString('utf8');
    return text.includes('\ufffd') && !isUtf8(raw) ? iconv.decode(raw, fallbackEncoding) : text;
  }
  if (encoding === 'utf-16le') return raw.toString('utf16le');
  return iconv.decode(raw, encoding, { stripBOM: false });
}

/**
 * decodeText of bytes [start, end) of a buffer. UTF-8 (the usual file) decodes in place: a cell a row,
 * a subarray object each would be a million short-lived Buffers per 100 MB.
 */
export function decodeRange(raw: Buffer, start: number, end: number, encoding: TextEncoding): string {
  if (encoding === 'utf-8') {
    const text = raw.toString('utf8', start, end);
    if (!text.includes('\ufffd')) return text;
  }
  return decodeText(raw.subarray(start, end), encoding);
}

/** ASCII text (a delimiter, a status) in the file's encoding: UTF-16 as two bytes a character, else as is. */
export function encodeAscii(text: string, encoding: TextEncoding): Buffer {
  if (encoding === 'utf-16le') return Buffer.from(text, 'utf16le');
  if (encoding === 'utf-16be') return Buffer.from(text, 'utf16le').swap16();
  return Buffer.from(text, 'latin1');
}
