// The row index of a results file: per row of the file, in order, its byte counts, its kind and (data
// rows) its status and the engine's reason. Written beside each chunk's part and joined beside the
// results file, it is what lets a filtered or reason-column copy of the results be made in one
// streaming pass without parsing CSV again.
//
// An index is a sequence of segments (one per chunk part; joining parts' indexes is concatenating
// them, no row decoded). A segment, all counts unsigned LEB128 varints unless said otherwise:
//
//   00 52 49 31                   magic "\0RI1" (a text index, below, never holds a 0 byte)
//   uint32 LE                     bytes of the segment after these 8
//   classes, then each class:     kind byte (h, e or d), line-ending bytes; a `d` class goes on with
//                                 a flags byte (1: duplicate), its status and its reason (UTF-8, each
//                                 as byte count + bytes)
//   rows, then each row:          its class's number in the table, its content bytes
//
// A chunk's rows share a handful of classes, so a row is ~2 bytes (a text line was ~22). kind is `h`
// (header), `e` (a pass-through line: blank, `sep=`, preamble, no non-blank cell) or `d` (data row,
// `duplicate` when the row repeats an earlier row's address: the assembly marks it,
// domain/bulk/duplicates.ts). Content bytes count the row as the results file holds it (its
// `mailvet_status` field included) up to its line ending.
//
// Jobs completed before this format have a text index (row-index-text.ts); readers take both, and a mix
// (a job whose chunks ran across the change).
import type { ChunkRows } from './annotate';
import { ROW_KIND_CODES, statusColumnHeader } from './annotate';
import { encodeAscii, unitBytes, type TextEncoding } from './encoding';
import { parseIndexLine } from './row-index-text';

export const rowIndexContentType = 'application/octet-stream';

export interface RowVerdict {
  status: string;
  reason: string;
}

export type RowKind = 'h' | 'e' | 'd';

/** What an index row says besides its content bytes; the rows of a chunk share a handful. */
export interface RowClass {
  kind: RowKind;
  eolBytes: number;
  /** A data row's status and reason ('' for other kinds). */
  status: string;
  reason: string;
  /** A data row whose address appeared earlier in the file. */
  duplicate: boolean;
}

/** One segment's rows: row i is `classes[codes[i]]` with `contentBytes[i]`. */
export interface IndexSegment {
  classes: RowClass[];
  codes: Uint32Array;
  contentBytes: Float64Array;
}

const magic = Buffer.from([0x00, 0x52, 0x49, 0x31]);
const headBytes = 8;
const kindBytes: Record<RowKind, number> = { h: 0x68, e: 0x65, d: 0x64 };
const DUPLICATE = 1;

function passClass(eolBytes: number): RowClass {
  return { kind: 'e', eolBytes, status: '', reason: '', duplicate: false };
}

export function headerClass(eolBytes: number): RowClass {
  return { kind: 'h', eolBytes, status: '', reason: '', duplicate: false };
}

export function dataClass(eolBytes: number, status: string, reason: string, duplicate = false): RowClass {
  return { kind: 'd', eolBytes, status, reason, duplicate };
}

/** Bytes that grow as needed, written as varints. */
class ByteWriter {
  buffer: Buffer;
  at = 0;

  constructor(capacity: number) {
    this.buffer = Buffer.allocUnsafe(Math.max(64, capacity));
  }

  room(bytes: number): void {
    if (this.at + bytes <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.at + bytes));
    this.buffer.copy(grown, 0, 0, this.at);
    this.buffer = grown;
  }

  /** A non-negative safe integer, 7 bits a byte, low bits first (at most 8 bytes). */
  varint(value: number): void {
    const buffer = this.buffer;
    let at = this.at;
    let rest = value;
    while (rest >= 0x80) {
      buffer[at++] = (rest % 0x80) | 0x80;
      rest = Math.floor(rest / 0x80);
    }
    buffer[at++] = rest;
    this.at = at;
  }

  bytes(bytes: Buffer): void {
    this.room(bytes.length);
    bytes.copy(this.buffer, this.at);
    this.at += bytes.length;
  }
}

function checkCount(value: number, what: string): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`row index: bad ${what} ${value}`);
}

/** Writes one segment: its rows in order, their classes numbered as they first appear. */
export class IndexSegmentWriter {
  private readonly classes: RowClass[] = [];
  private readonly codeOf = new Map<string, number>();
  private readonly rows: ByteWriter;
  private count = 0;

  constructor(expectedRows = 1024) {
    this.rows = new ByteWriter(expectedRows * 2);
  }

  /** The class's number in this segment's table, added on first use. */
  code(rowClass: RowClass): number {
    const { kind, eolBytes, status, reason, duplicate } = rowClass;
    const key = JSON.stringify(kind === 'd' ? [kind, eolBytes, status, reason, duplicate] : [kind, eolBytes]);
    let code = this.codeOf.get(key);
    if (code === undefined) {
      checkCount(eolBytes, 'line-ending byte count');
      code = this.classes.length;
      this.classes.push(
        kind === 'd' ? { ...rowClass } : { ...rowClass, status: '', reason: '', duplicate: false },
      );
      this.codeOf.set(key, code);
    }
    return code;
  }

  /** A row of class `code` (from code()). */
  row(code: number, contentBytes: number): void {
    if (code >= this.classes.length) throw new Error(`row index: no class ${code}`);
    checkCount(contentBytes, 'content byte count');
    this.rows.room(16);
    this.rows.varint(code);
    this.rows.varint(contentBytes);
    this.count++;
  }

  /** The segment's bytes. */
  finish(): Buffer {
    const table = new ByteWriter(64 + this.classes.length * 32);
    table.at = headBytes;
    table.varint(this.classes.length);
    for (const rowClass of this.classes) {
      table.room(16);
      table.buffer[table.at++] = kindBytes[rowClass.kind];
      table.varint(rowClass.eolBytes);
      if (rowClass.kind !== 'd') continue;
      table.room(1);
      table.buffer[table.at++] = rowClass.duplicate ? DUPLICATE : 0;
      for (const text of [rowClass.status, rowClass.reason]) {
        const bytes = Buffer.from(text, 'utf8');
        table.room(8);
        table.varint(bytes.length);
        table.bytes(bytes);
      }
    }
    table.room(8);
    table.varint(this.count);
    const out = Buffer.allocUnsafe(table.at + this.rows.at);
    table.buffer.copy(out, 0, 0, table.at);
    this.rows.buffer.copy(out, table.at, 0, this.rows.at);
    magic.copy(out, 0);
    out.writeUInt32LE(out.length - headBytes, magic.length);
    return out;
  }
}

/** The index segment of one annotated chunk part (rows as readChunk gave them, verdicts per data row). */
export function indexChunk(
  rows: ChunkRows,
  verdicts: readonly RowVerdict[],
  encoding: TextEncoding = 'utf-8',
): Buffer {
  // The appended delimiter and status are written in the file's encoding: 2 bytes a character in UTF-16.
  const width = unitBytes(encoding);
  const { count, kinds, starts, contentEnds, ends } = rows;
  const out = new IndexSegmentWriter(count);
  // The engine's verdicts are a few shared objects: each one's classes (by line ending) are looked up
  // once, and most rows have the row before's verdict and line ending, which skips even that.
  const codesOf = new Map<RowVerdict, number[]>();
  const passCodes: number[] = [];
  const headerCodes: number[] = [];
  let lastVerdict: RowVerdict | undefined;
  let lastEol = -1;
  let lastCode = 0;
  let next = 0;
  for (let row = 0; row < count; row++) {
    const eol = ends[row]! - contentEnds[row]!;
    const content = contentEnds[row]! - starts[row]!;
    const kind = kinds[row];
    if (kind === PASS) out.row((passCodes[eol] ??= out.code(passClass(eol))), content);
    else if (kind === HEADER)
      out.row((headerCodes[eol] ??= out.code(headerClass(eol))), content + headerExtra * width);
    else {
      const verdict = verdicts[next++];
      if (!verdict) throw new Error('indexChunk: fewer verdicts than data rows');
      if (verdict !== lastVerdict || eol !== lastEol) {
        let codes = codesOf.get(verdict);
        if (!codes) codesOf.set(verdict, (codes = []));
        lastCode = codes[eol] ??= out.code(dataClass(eol, verdict.status, verdict.reason));
        lastVerdict = verdict;
        lastEol = eol;
      }
      out.row(lastCode, content + (1 + verdict.status.length) * width);
    }
  }
  return out.finish();
}

const PASS = ROW_KIND_CODES.pass;
const HEADER = ROW_KIND_CODES.header;
/** The delimiter and `mailvet_status` the header row gains, in characters. */
const headerExtra = 1 + statusColumnHeader.length;

/** Reads varints and bytes from one segment's bytes, throwing on anything this module did not write. */
class SegmentReader {
  at = 0;
  constructor(private readonly bytes: Buffer) {}

  varint(): number {
    const bytes = this.bytes;
    let value = 0;
    let scale = 1;
    for (let shift = 0; shift < 8; shift++) {
      const byte = bytes[this.at++];
      if (byte === undefined) throw badIndex('a segment ends inside a number');
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 0x80;
    }
    throw badIndex('a number is too long');
  }

  byte(): number {
    const byte = this.bytes[this.at++];
    if (byte === undefined) throw badIndex('a segment ends early');
    return byte;
  }

  text(): string {
    const length = this.varint();
    if (this.at + length > this.bytes.length) throw badIndex('a segment ends inside a text');
    const text = this.bytes.toString('utf8', this.at, this.at + length);
    this.at += length;
    return text;
  }
}

function badIndex(why: string): Error {
  return new Error(`bad row index: ${why}`);
}

/** One segment's rows from its bytes after the 8-byte head. */
function decodeSegment(bytes: Buffer): IndexSegment {
  const reader = new SegmentReader(bytes);
  const classCount = reader.varint();
  const classes: RowClass[] = [];
  for (let n = 0; n < classCount; n++) {
    const kind = reader.byte();
    const eolBytes = reader.varint();
    if (kind === kindBytes.h) classes.push(headerClass(eolBytes));
    else if (kind === kindBytes.e) classes.push(passClass(eolBytes));
    else if (kind === kindBytes.d) {
      const flags = reader.byte();
      if (flags > DUPLICATE) throw badIndex(`unknown flags ${flags}`);
      classes.push(dataClass(eolBytes, reader.text(), reader.text(), flags === DUPLICATE));
    } else throw badIndex(`unknown row kind ${kind}`);
  }
  const count = reader.varint();
  // every row takes at least 2 bytes: a count beyond that is a corrupt segment, not a huge allocation
  if (count * 2 > bytes.length - reader.at) throw badIndex('fewer rows than the segment says');
  const codes = new Uint32Array(count);
  const contentBytes = new Float64Array(count);
  for (let row = 0; row < count; row++) {
    const code = reader.varint();
    if (code >= classCount) throw badIndex(`row class ${code} of ${classCount}`);
    codes[row] = code;
    contentBytes[row] = reader.varint();
  }
  if (reader.at !== bytes.length) throw badIndex('bytes after the last row');
  return { classes, codes, contentBytes };
}

/** Text index lines as a segment (the format jobs completed before the binary one have). */
function textSegment(lines: string[]): IndexSegment {
  const writer = new Map<string, number>();
  const classes: RowClass[] = [];
  const codes = new Uint32Array(lines.length);
  const contentBytes = new Float64Array(lines.length);
  lines.forEach((line, row) => {
    const parsed = parseIndexLine(line);
    const rowClass =
      parsed.kind === 'd'
        ? dataClass(parsed.eolBytes, parsed.status, parsed.reason, parsed.duplicate === true)
        : parsed.kind === 'h'
          ? headerClass(parsed.eolBytes)
          : passClass(parsed.eolBytes);
    // the line without its content bytes is the class
    const key = line.slice(line.indexOf(' ') + 1);
    let code = writer.get(key);
    if (code === undefined) {
      code = classes.length;
      classes.push(rowClass);
      writer.set(key, code);
    }
    codes[row] = code;
    contentBytes[row] = parsed.contentBytes;
  });
  return { classes, codes, contentBytes };
}

/** Cuts index bytes, as they arrive, into segments: binary ones whole, text lines in runs. */
class IndexSplitter {
  private buffered: Buffer = Buffer.alloc(0);

  push(piece: Buffer | Uint8Array): void {
    const bytes = Buffer.isBuffer(piece)
      ? piece
      : Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
    this.buffered = this.buffered.length === 0 ? bytes : Buffer.concat([this.buffered, bytes]);
  }

  /** The next whole segment, or undefined until more bytes come (`last`: none will). */
  next(last: boolean): IndexSegment | undefined {
    const bytes = this.buffered;
    if (bytes.length === 0) return undefined;
    if (bytes[0] === magic[0]) {
      if (bytes.length < headBytes) {
        if (last) throw badIndex('it ends inside a segment head');
        return undefined;
      }
      if (bytes.compare(magic, 0, magic.length, 0, magic.length) !== 0)
        throw badIndex('unknown segment format');
      const end = headBytes + bytes.readUInt32LE(magic.length);
      if (bytes.length < end) {
        if (last) throw badIndex('it ends inside a segment');
        return undefined;
      }
      this.buffered = bytes.subarray(end);
      return decodeSegment(bytes.subarray(headBytes, end));
    }
    // Text lines run up to the next binary segment (which starts a line) or the last whole line.
    const binary = bytes.indexOf(magic[0]!);
    let end: number;
    if (binary >= 0) {
      if (bytes[binary - 1] !== 0x0a) throw badIndex('a segment inside a text line');
      end = binary;
    } else if (last) end = bytes.length;
    else {
      end = bytes.lastIndexOf(0x0a) + 1;
      if (end === 0) return undefined;
    }
    const lines = bytes.toString('latin1', 0, end).split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    this.buffered = bytes.subarray(end);
    return textSegment(lines);
  }
}

/** The segments of a whole index (either format). */
export function readIndex(bytes: Buffer): IndexSegment[] {
  const splitter = new IndexSplitter();
  splitter.push(bytes);
  const segments: IndexSegment[] = [];
  for (let segment = splitter.next(true); segment; segment = splitter.next(true)) segments.push(segment);
  return segments;
}

/** The segments of an index as its bytes stream in (either format). */
export async function* indexSegments(body: AsyncIterable<Buffer | Uint8Array>): AsyncGenerator<IndexSegment> {
  const splitter = new IndexSplitter();
  for await (const piece of body) {
    splitter.push(piece);
    for (let segment = splitter.next(false); segment; segment = splitter.next(false)) yield segment;
  }
  for (let segment = splitter.next(true); segment; segment = splitter.next(true)) yield segment;
}

/** What a results copy keeps and adds. */
export interface ResultsVariant {
  /** Data rows with one of these statuses are kept; undefined keeps every row. */
  statuses?: ReadonlySet<string>;
  /** Leave out data rows that repeat an earlier row's address (keep first occurrences only). */
  unique?: boolean;
  /** Append `mailvet_reason` after `mailvet_status`. */
  reason: boolean;
  delimiter: string;
  /** The file's encoding: the reason column is written in it, as the status was. */
  encoding: TextEncoding;
}

export const reasonColumnHeader = 'mailvet_reason';

/**
 * What a variant does with the rows of a class: leaves them out (undefined), keeps them as they are
 * (true), or keeps them with these bytes (the reason column) between their content and line ending,
 * as the status went. A row's own bytes are never changed.
 */
export function classInVariant(rowClass: RowClass, variant: ResultsVariant): Buffer | boolean | undefined {
  const { kind } = rowClass;
  if (kind === 'e') return true;
  if (kind === 'd' && variant.statuses && !variant.statuses.has(rowClass.status)) return undefined;
  if (kind === 'd' && variant.unique && rowClass.duplicate) return undefined;
  if (!variant.reason) return true;
  return encodeAscii(
    variant.delimiter + (kind === 'h' ? reasonColumnHeader : rowClass.reason),
    variant.encoding,
  );
}
