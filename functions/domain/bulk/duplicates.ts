// Duplicate rows of a bulk file, found by the upload scan (docs/bulk.md, "Duplicate rows").
//
// The scan already reads every row once to cut chunks; here it also reduces each row's email cell to a
// 64-bit hash of its comparison key (the address after extraction and normalisation, lower-cased) and
// logs it (12 bytes a row, no string kept); once the scan ends, the log is looked up partition by
// partition in small open-addressing tables (bench/duplicates.ts, bench/scan.ts). A row whose key was
// seen before is recorded as a pair (its data-row ordinal, the first occurrence's ordinal); the pairs go
// to one small object that the results assembly reads to give each duplicate its first occurrence's
// status. Two different addresses share a 64-bit hash with odds of about 1 in 10^7 for a million
// distinct addresses in one file.
import { decodeText, type TextEncoding } from './csv/encoding';
import { cellText } from './csv/row-tokenizer';
import { extractAddress } from '../validation/extract-address';
import { normalizeEmail } from '../validation/normalize';
import { isTestAddress } from '../validation/test-addresses';

/**
 * A comparison key's hash as two 32-bit halves (written by hashKey* into `out`): a pair, or a
 * Uint32Array(2), whose slots hold values over 2^31 without a heap number each.
 */
type Hash64 = [hi: number, lo: number] | Uint32Array;

// Two independent 32-bit lanes over the same words: FNV-1a style and a multiply-xorshift, each finished
// with murmur3's fmix32. A word packs 4 units of the key (2 when a unit is above 0xff): ASCII bytes and
// the same characters as UTF-16 code units hash alike, so a key read straight from bytes (fast path) and
// one built as a string (slow path) meet. A word a step, not a unit, makes the lanes' multiply chains
// four times shorter: they bound the speed of the fast path.
const FNV_OFFSET = 0x811c9dc5;
const LANE_B_SEED = 0x9747b28c;

function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

function finish(a: number, b: number, length: number, out: Hash64): void {
  out[0] = fmix32(a ^ length);
  out[1] = fmix32(b ^ Math.imul(length, 0x27d4eb2d));
}

/** Hash of a key string (already lower-cased). */
function hashKey(key: string, out: Hash64): void {
  let a = FNV_OFFSET;
  let b = LANE_B_SEED;
  // eslint-disable-next-line no-control-regex -- any unit above 0xff: two units a word
  const step = /[^\u0000-\u00ff]/.test(key) ? 16 : 8;
  let word = 0;
  let shift = 0;
  for (let i = 0; i < key.length; i++) {
    word |= key.charCodeAt(i) << shift;
    shift += step;
    if (shift === 32) {
      a = Math.imul(a ^ word, 0x01000193);
      b = Math.imul(b ^ word, 0x5bd1e995);
      b ^= b >>> 15;
      word = 0;
      shift = 0;
    }
  }
  if (shift > 0) {
    a = Math.imul(a ^ word, 0x01000193);
    b = Math.imul(b ^ word, 0x5bd1e995);
    b ^= b >>> 15;
  }
  finish(a, b, key.length, out);
}

/**
 * The comparison key of a cell's text: the address the engine would validate (extractAddress, then
 * normalizeEmail: last "@", IDN domain to ASCII), lower-cased whole. '' for a blank cell.
 */
export function comparisonKey(cell: string): string {
  const text = cellText(cell);
  const address = extractAddress(text) ?? text;
  return normalizeEmail(address).email.toLowerCase();
}

const SPACE = 0x20;
const TAB = 0x09;
const AT = 0x40;

/** Alphanumeric or `]`: extractAddress's plain last character (nothing to strip after it). */
function plainEnd(b: number): boolean {
  return (b >= 0x61 && b <= 0x7a) || (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || b === 0x5d;
}

/** hashPlain's answer for a cell that is not plain ASCII: the slow path decides. */
const notPlain = -2;
/** hashPlain's answer for a plain cell with more than one "@". */
const severalAts = -3;

/**
 * Hashes raw[start, end) (trimmed, not empty) straight from the bytes when it is a plain ASCII address
 * cell; the offset of its one "@" (-1 when it has none, severalAts), or notPlain. The fast path's
 * conditions are those under which comparisonKey is the cell lower-cased: printable ASCII, not "<" or a
 * quote first, a plain last character, no "mailto:". extractAddress then gives the cell as it is (or null
 * for several addresses, and the key is the cell's text again) and normalizeEmail only lower-cases the
 * domain after the last "@".
 */
function hashPlain(raw: Buffer, view: DataView, start: number, end: number, out: Hash64): number {
  const first = raw[start]!;
  if (first === 0x22 || first === 0x3c || !plainEnd(raw[end - 1]!)) return notPlain;
  if (end - start > 7 && raw[start + 6] === 0x3a) return notPlain;
  let a = FNV_OFFSET;
  let b = LANE_B_SEED;
  let at = -1;
  let i = start;
  // Four bytes a step, tested together (bit tricks on the word, each byte's test in its top bit): the
  // word is the one the byte loop below would pack, so both give the same hash.
  for (; i + 4 <= end; i += 4) {
    let word = view.getInt32(i, true);
    // a byte of 0x7f or more (not printable ASCII), or of 0x20 or less (valid for bytes under 0x80)
    if ((word | (word + 0x01010101) | ((word - 0x21212121) & ~word)) & 0x80808080) return notPlain;
    const ats = ((word ^ 0x40404040) - 0x01010101) & ~(word ^ 0x40404040) & 0x80808080;
    if (ats !== 0) {
      for (let k = 0; k < 4; k++) if (raw[i + k] === AT) at = at === -1 ? i + k : severalAts;
    }
    // A-Z to a-z: bytes of 0x41 or more and not 0x5b or more get 0x20
    word |= (((word + 0x3f3f3f3f) & ~(word + 0x25252525) & 0x80808080) >>> 2) | 0;
    a = Math.imul(a ^ word, 0x01000193);
    b = Math.imul(b ^ word, 0x5bd1e995);
    b ^= b >>> 15;
  }
  if (i < end && end - start >= 4) {
    // the last 1-3 bytes: the word that ends the cell, shifted down to them (the same word as packed below)
    const drop = 8 * (4 - (end - i));
    const valid = 0x80808080 >>> drop;
    let word = view.getInt32(end - 4, true) >>> drop;
    if ((word | (word + 0x01010101) | ((word - 0x21212121) & ~word)) & valid) return notPlain;
    if (((word ^ 0x40404040) - 0x01010101) & ~(word ^ 0x40404040) & valid) {
      for (let k = i; k < end; k++) if (raw[k] === AT) at = at === -1 ? k : severalAts;
    }
    word |= (((word + 0x3f3f3f3f) & ~(word + 0x25252525) & valid) >>> 2) | 0;
    a = Math.imul(a ^ word, 0x01000193);
    b = Math.imul(b ^ word, 0x5bd1e995);
    b ^= b >>> 15;
    i = end;
  }
  let word = 0;
  let shift = 0;
  for (; i < end; i++) {
    let c = raw[i]!;
    if (c <= SPACE || c >= 0x7f) return notPlain;
    if (c === AT) {
      at = at === -1 ? i : severalAts;
    } else if (c >= 0x41 && c <= 0x5a) c |= 0x20;
    word |= c << shift;
    shift += 8;
  }
  if (shift > 0) {
    a = Math.imul(a ^ word, 0x01000193);
    b = Math.imul(b ^ word, 0x5bd1e995);
    b ^= b >>> 15;
  }
  finish(a, b, end - start, out);
  return at;
}

/** A DataView over all of `raw`, for hashPlain's four-byte reads. */
function viewOf(raw: Buffer): DataView {
  return new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
}

/**
 * Hashes the comparison key of a raw email cell (the file's bytes). Plain ASCII cells (the bulk of any
 * real file) are hashed straight from the bytes; anything else (quotes, `Name <address>`, non-ASCII,
 * UTF-16) goes through comparisonKey. False for a blank cell.
 */
export function hashCell(
  raw: Buffer,
  encoding: TextEncoding,
  out: Hash64,
  from = 0,
  to = raw.length,
): boolean {
  if (encoding.startsWith('utf-16')) return hashSlow(raw.subarray(from, to), encoding, out);
  let start = from;
  let end = to;
  while (start < end && (raw[start] === SPACE || raw[start] === TAB)) start++;
  while (end > start && (raw[end - 1] === SPACE || raw[end - 1] === TAB)) end--;
  if (start === end) return false;
  if (hashPlain(raw, viewOf(raw), start, end, out) !== notPlain) return true;
  return hashSlow(raw.subarray(from, to), encoding, out);
}

function hashSlow(raw: Buffer, encoding: TextEncoding, out: Hash64): boolean {
  const key = comparisonKey(decodeText(raw, encoding));
  if (key === '') return false;
  hashKey(key, out);
  return true;
}

const testDomain = Buffer.from('@mailvet.test');

/** `@mailvet.test` in the cell, any case (a cheap filter before isTestAddress decides). */
function mentionsTestDomain(raw: Buffer, from: number, to: number, encoding: TextEncoding): boolean {
  if (encoding.startsWith('utf-16'))
    return /@mailvet\.test/i.test(decodeText(raw.subarray(from, to), encoding));
  const last = to - testDomain.length;
  outer: for (let i = from; i <= last; i++) {
    for (let j = 0; j < testDomain.length; j++) {
      const c = raw[i + j]!;
      if ((c >= 0x41 && c <= 0x5a ? c | 0x20 : c) !== testDomain[j]) continue outer;
    }
    return true;
  }
  return false;
}

/** `@mailvet.test` (any case) at raw[at, end). */
function testDomainAt(raw: Buffer, at: number, end: number): boolean {
  if (end - at < testDomain.length) return false;
  for (let j = 0; j < testDomain.length; j++) {
    const c = raw[at + j]!;
    if ((c >= 0x41 && c <= 0x5a ? c | 0x20 : c) !== testDomain[j]) return false;
  }
  return true;
}

/** Slots at most: 2^25 (400 MB of typed arrays) holds the rows of the largest file allowed. */
const maxCapacity = 1 << 25;

/** The power of two of at least `slots` slots (16 to maxCapacity). */
function capacityFor(slots: number): number {
  let capacity = 1 << 4;
  while (capacity < slots && capacity < maxCapacity) capacity <<= 1;
  return capacity;
}

/**
 * A set of 64-bit hashes, each with the ordinal of the row that first held it: open addressing with
 * linear probing over one Uint32Array of (hi, lo, first ordinal + 1) triples, so a probe touches one
 * cache line; grown at a load of 0.7.
 */
export class HashOrdinalSet {
  /** Slot i is words [3i, 3i + 3): hi, lo, first ordinal plus one (0: empty slot). */
  private slots: Uint32Array;
  private mask: number;
  size = 0;

  constructor(initialCapacity = 1 << 16) {
    const capacity = capacityFor(initialCapacity);
    this.slots = new Uint32Array(capacity * 3);
    this.mask = capacity - 1;
  }

  /** Empties the set, with room for `initialCapacity` slots (the memory is kept when it suffices). */
  reset(initialCapacity: number): void {
    const capacity = capacityFor(initialCapacity);
    if (capacity * 3 > this.slots.length) this.slots = new Uint32Array(capacity * 3);
    else this.slots.fill(0, 0, capacity * 3);
    this.mask = capacity - 1;
    this.size = 0;
  }

  /** The ordinal that first held the hash, or -1 after recording `ordinal` as its first. */
  firstOrAdd(hi: number, lo: number, ordinal: number): number {
    const slots = this.slots;
    let slot = lo & this.mask;
    for (;;) {
      const at = slot * 3;
      const held = slots[at + 2]!;
      if (held === 0) {
        slots[at] = hi;
        slots[at + 1] = lo;
        slots[at + 2] = ordinal + 1;
        if (++this.size > this.mask * 0.7) this.grow();
        return -1;
      }
      if (slots[at + 1] === lo && slots[at] === hi) return held - 1;
      slot = (slot + 1) & this.mask;
    }
  }

  private grow(): void {
    const capacity = (this.mask + 1) * 2;
    if (capacity > maxCapacity)
      throw new Error('duplicate set: more distinct addresses than a file can hold');
    const old = this.slots;
    const slots = new Uint32Array(capacity * 3);
    const mask = capacity - 1;
    for (let at = 0; at <= this.mask * 3; at += 3) {
      if (old[at + 2] === 0) continue;
      let slot = old[at + 1]! & mask;
      while (slots[slot * 3 + 2] !== 0) slot = (slot + 1) & mask;
      slots.set(old.subarray(at, at + 3), slot * 3);
    }
    this.slots = slots;
    this.mask = mask;
  }
}

/** What the scan found: pairs in file order, and how many duplicates are test addresses. */
export interface DuplicateRows {
  /** Number of duplicate rows. */
  count: number;
  /** Duplicates holding a test address (mailvet.test): usage never counts those anyway. */
  testAddresses: number;
  /** Little-endian uint32 pairs: (duplicate row's ordinal, first occurrence's ordinal), ascending. */
  pairs(): Buffer;
}

/**
 * Rows a partition holds on average when the finder resolves: its table (12 bytes a slot, at most half
 * full) then stays in the CPU's cache instead of missing it once a row.
 */
const rowsPerPartition = 4096;
/** The finest partitioning (2^12 partitions): past 16M rows a partition holds more than 4096 rows. */
const histogramBits = 12;
/** Bit 31 of a logged ordinal: the cell is a test address. */
const testBit = 0x80000000;

/**
 * Collects the duplicate rows of one file as the scan hands it each data row's email cell.
 *
 * Rows are only hashed and logged while the scan runs (12 bytes each, written in order). The duplicates
 * are resolved once, when first asked for: the log is split by the hashes' top bits into partitions of
 * a few thousand rows, in file order within each, and each partition is looked up in one small table.
 * One table for the whole file would be far larger than any cache and cost a memory miss a row.
 */
export class DuplicateFinder implements DuplicateRows {
  private readonly hash = new Uint32Array(2);
  private readonly wide: boolean;
  /** Each hashed row in file order: hash hi, hash lo, ordinal (testBit: a test address). */
  private log: Uint32Array;
  private logged = 0;
  /** Logged rows by the top histogramBits of their hash's hi word: the partitions' sizes. */
  private readonly histogram = new Int32Array(1 << histogramBits);
  private resolved: { pairs: Uint32Array; count: number; testAddresses: number } | undefined;
  /** The buffer the last cell came in and a view of it (cells of one stream piece share them). */
  private viewed: Buffer | undefined;
  private view: DataView = new DataView(new ArrayBuffer(0));

  /** @param expectedRows a guess of the file's rows (the log starts that large) */
  constructor(
    private readonly encoding: TextEncoding,
    expectedRows = 0,
  ) {
    this.log = new Uint32Array(Math.max(1024, Math.ceil(expectedRows)) * 3);
    this.wide = encoding.startsWith('utf-16');
  }

  /** Duplicate rows found. */
  get count(): number {
    return this.resolve().count;
  }

  /** Duplicates holding a test address. */
  get testAddresses(): number {
    return this.resolve().testAddresses;
  }

  /** Data row `ordinal` (0-based, file order) has the raw email cell raw[from, to). */
  row(ordinal: number, raw: Buffer, from: number, to: number): void {
    const hash = this.hash;
    let test = false;
    let at = notPlain;
    if (!this.wide) {
      let start = from;
      let end = to;
      while (start < end && (raw[start] === SPACE || raw[start] === TAB)) start++;
      while (end > start && (raw[end - 1] === SPACE || raw[end - 1] === TAB)) end--;
      if (start === end) return;
      if (raw !== this.viewed) {
        this.view = viewOf(raw);
        this.viewed = raw;
      }
      at = hashPlain(raw, this.view, start, end, hash);
      if (at >= 0 && testDomainAt(raw, at, end)) test = this.isTestCell(raw, from, to);
      else if (at === severalAts)
        test = mentionsTestDomain(raw, from, to, this.encoding) && this.isTestCell(raw, from, to);
    }
    if (at === notPlain) {
      if (!hashSlow(raw.subarray(from, to), this.encoding, hash)) return;
      test = mentionsTestDomain(raw, from, to, this.encoding) && this.isTestCell(raw, from, to);
    }
    let log = this.log;
    const n = this.logged;
    if (n + 3 > log.length) {
      log = new Uint32Array(log.length * 2);
      log.set(this.log);
      this.log = log;
    }
    const hi = hash[0]!;
    log[n] = hi;
    log[n + 1] = hash[1]!;
    this.histogram[hi >>> (32 - histogramBits)]!++;
    log[n + 2] = test ? (ordinal | testBit) >>> 0 : ordinal;
    this.logged = n + 3;
    this.resolved = undefined;
  }

  private isTestCell(raw: Buffer, from: number, to: number): boolean {
    return isTestAddress(cellText(decodeText(raw.subarray(from, to), this.encoding)));
  }

  /**
   * Finds the duplicates of the rows logged so far. A counting sort by the hash's top bits (stable: file
   * order within a partition) puts each partition together; a partition is probed in a table sized for
   * it, and each of its rows' outcome (its first occurrence's ordinal plus one, 0 for a first) replaces
   * the row's hi word, no longer needed. When some row repeats, walking the log again in file order reads
   * the outcomes in the order the pairs are listed.
   */
  private resolve(): { pairs: Uint32Array; count: number; testAddresses: number } {
    if (this.resolved) return this.resolved;
    const { log, logged, histogram } = this;
    const rows = logged / 3;
    let bits = 0;
    while (bits < histogramBits && rows >>> bits > rowsPerPartition) bits++;
    const drop = 32 - bits;
    const partitions = 1 << bits;
    // partition p: the histogram's buckets [p << merge, (p + 1) << merge)
    const merge = histogramBits - bits;
    const starts = new Int32Array(partitions + 1);
    for (let bucket = 0; bucket < histogram.length; bucket++)
      starts[(bucket >>> merge) + 1]! += histogram[bucket]!;
    for (let p = 0; p < partitions; p++) starts[p + 1]! += starts[p]!;
    const cursor = Int32Array.from(starts);
    const sorted = new Uint32Array(logged);
    // bits is 0 for a small log: one partition (x >>> 32 would be x >>> 0)
    const partitionOf = (hi: number) => (bits === 0 ? 0 : hi >>> drop);
    for (let at = 0; at < logged; at += 3) {
      const to = cursor[partitionOf(log[at]!)]!++ * 3;
      sorted[to] = log[at]!;
      sorted[to + 1] = log[at + 1]!;
      sorted[to + 2] = log[at + 2]!;
    }
    let largest = 0;
    for (let p = 0; p < partitions; p++) largest = Math.max(largest, starts[p + 1]! - starts[p]!);
    // at most half full: no partition's rows make it grow
    const set = new HashOrdinalSet(largest * 2);
    let count = 0;
    for (let p = 0; p < partitions; p++) {
      const first = starts[p]!;
      const end = starts[p + 1]!;
      set.reset((end - first) * 2);
      for (let at = first * 3; at < end * 3; at += 3) {
        const earlier = set.firstOrAdd(sorted[at]!, sorted[at + 1]!, sorted[at + 2]! & ~testBit);
        sorted[at] = earlier + 1;
        if (earlier >= 0) count++;
      }
    }
    const pairs = new Uint32Array(count * 2);
    let testAddresses = 0;
    if (count > 0) {
      // the log in file order again: the k-th row of partition p sits where the sort put it
      cursor.set(starts);
      let n = 0;
      for (let at = 0; at < logged; at += 3) {
        const outcome = sorted[cursor[partitionOf(log[at]!)]!++ * 3]!;
        if (outcome === 0) continue;
        const ordinal = log[at + 2]!;
        pairs[n++] = ordinal & ~testBit;
        pairs[n++] = outcome - 1;
        if (ordinal & testBit) testAddresses++;
      }
    }
    this.resolved = { pairs, count, testAddresses };
    return this.resolved;
  }

  pairs(): Buffer {
    const words = this.resolve().pairs;
    const out = Buffer.alloc(words.length * 4);
    for (let i = 0; i < words.length; i++) out.writeUInt32LE(words[i]!, i * 4);
    return out;
  }
}

/** The pairs object read back: duplicate ordinals and their first occurrences, ascending by duplicate. */
export function readPairs(bytes: Buffer): { duplicates: Uint32Array; firsts: Uint32Array } {
  const count = Math.floor(bytes.length / 8);
  const duplicates = new Uint32Array(count);
  const firsts = new Uint32Array(count);
  for (let i = 0; i < count; i++) {
    duplicates[i] = bytes.readUInt32LE(i * 8);
    firsts[i] = bytes.readUInt32LE(i * 8 + 4);
  }
  return { duplicates, firsts };
}
