// Reads the rows of one chunk and writes the chunk's part of the results file: every row's original
// bytes, then the delimiter and its status (in the file's encoding) before the row's line ending. The
// header row gets `mailvet_status`; pass-through lines (blank rows, an Excel `sep=` line, a preamble)
// stay as they are; a last row without a line ending stays so.
import type { Dialect } from './dialect';
import { bomBytes, decodeRange, encodeAscii, unitBytes, unitView } from './encoding';
import { cellText, RowTokenizer } from './row-tokenizer';

export const statusColumnHeader = 'mailvet_status';

export type ChunkRowKind = 'header' | 'data' | 'pass';

/** ChunkRows.kinds: a row's kind as a byte. */
export const ROW_KIND_CODES = { pass: 0, header: 1, data: 2 } as const;
const kindCodes = ROW_KIND_CODES;
const PASS = kindCodes.pass;
const HEADER = kindCodes.header;
const DATA = kindCodes.data;
const kindNames: readonly ChunkRowKind[] = ['pass', 'header', 'data'];

/**
 * The rows of a chunk, offsets (bytes) relative to the chunk's first byte: [start, contentEnd) is a
 * row's content and [contentEnd, end) its line ending. Kept in typed arrays, not an object per row: a
 * 4 MB chunk has ~45,000 rows, and objects that live through the chunk's DNS and S3 waits would be
 * copied out of the young generation and collected again later.
 */
export class ChunkRows {
  count = 0;
  kinds: Uint8Array;
  starts: Uint32Array;
  contentEnds: Uint32Array;
  ends: Uint32Array;
  /** The email cell of each data row, in order ('' when blank; undefined when the row has too few columns). */
  emails: (string | undefined)[] = [];

  constructor(capacity: number) {
    const size = Math.max(16, capacity);
    this.kinds = new Uint8Array(size);
    this.starts = new Uint32Array(size);
    this.contentEnds = new Uint32Array(size);
    this.ends = new Uint32Array(size);
  }

  kindOf(row: number): ChunkRowKind {
    return kindNames[this.kinds[row]!]!;
  }

  add(kind: ChunkRowKind, start: number, contentEnd: number, end: number): void {
    this.addCode(kindCodes[kind], start, contentEnd, end);
  }

  /** add, with the kind as its code (kindCodes). */
  addCode(kind: number, start: number, contentEnd: number, end: number): void {
    if (this.count === this.kinds.length) this.grow();
    const at = this.count++;
    this.kinds[at] = kind;
    this.starts[at] = start;
    this.contentEnds[at] = contentEnd;
    this.ends[at] = end;
  }

  private grow(): void {
    const widen = <T extends Uint8Array | Uint32Array>(from: T, to: T): T => {
      to.set(from);
      return to;
    };
    const size = this.kinds.length * 2;
    this.kinds = widen(this.kinds, new Uint8Array(size));
    this.starts = widen(this.starts, new Uint32Array(size));
    this.contentEnds = widen(this.contentEnds, new Uint32Array(size));
    this.ends = widen(this.ends, new Uint32Array(size));
  }
}

/**
 * Rows to make room for in a chunk of `bytes`: one per 48 bytes, as a list of contacts has rows of
 * 50-100 bytes (bench:bulk's ~62). Short of that the arrays grow, a copy of each and twice the memory.
 */
function rowCapacityFor(bytes: number): number {
  return Math.ceil(bytes / 48);
}

/** What a validator knows of the file it reads a chunk of (the chunk message carries it). */
export type ChunkLayout = Pick<Dialect, 'delimiter' | 'encoding' | 'headerStart' | 'dataStart'> & {
  emailColumn: number;
  /** Byte offset of the chunk in the file. */
  chunkStart: number;
};

/** A row of a chunk as one object (readChunkRows), offsets (bytes) relative to the chunk's first byte. */
export interface ChunkRow {
  kind: ChunkRowKind;
  start: number;
  contentEnd: number;
  end: number;
  /** The email cell's text ('' when blank); undefined when the row has too few columns. */
  email: string | undefined;
}

/** The rows of a chunk one object each, for code that reads a few rows at a time (tests, tools). */
export function readChunkRows(chunk: Buffer, layout: ChunkLayout): ChunkRow[] {
  const rows = readChunk(chunk, layout);
  let next = 0;
  return Array.from({ length: rows.count }, (_, row) => {
    const kind = rows.kindOf(row);
    return {
      kind,
      start: rows.starts[row]!,
      contentEnd: rows.contentEnds[row]!,
      end: rows.ends[row]!,
      email: kind === 'data' ? rows.emails[next++] : undefined,
    };
  });
}

/**
 * Tokenizes a chunk (whole rows) of a file. One byte a unit (UTF-8, the legacy encodings) goes through
 * readBytewide, a single pass that writes the rows straight into ChunkRows; UTF-16 through the shared
 * RowTokenizer. Both follow the tokenizer's rules (row-tokenizer.ts); a property test holds them equal.
 */
export function readChunk(chunk: Buffer, layout: ChunkLayout): ChunkRows {
  return unitBytes(layout.encoding) === 1 ? readBytewide(chunk, layout) : readTokenized(chunk, layout);
}

/** readChunk through RowTokenizer, for any encoding (the UTF-16 path, and the reference in tests). */
export function readTokenized(chunk: Buffer, layout: ChunkLayout): ChunkRows {
  const { encoding, chunkStart } = layout;
  const width = unitBytes(encoding);
  const units = unitView(chunk, encoding);
  const end = chunkStart + chunk.length;
  // Units are bytes except in UTF-16, where a stray odd last byte makes the last unit end past the chunk.
  const byteAt =
    width === 1
      ? (unit: number) => unit - chunkStart
      : (unit: number) => Math.min(unit * 2, end) - chunkStart;
  const rows = new ChunkRows(rowCapacityFor(chunk.length));
  const emails = rows.emails;
  const tokenizer = new RowTokenizer(
    layout.delimiter.charCodeAt(0),
    layout.emailColumn,
    (row) => {
      const start = byteAt(row.start);
      const absolute = chunkStart + start;
      let kind: ChunkRowKind = 'pass';
      if (absolute === layout.headerStart) kind = 'header';
      else if (!row.blank && absolute >= layout.dataStart) kind = 'data';
      rows.add(kind, start, byteAt(row.contentEnd), byteAt(row.end));
      if (kind === 'data')
        emails.push(
          row.emailStart >= 0
            ? cellText(decodeRange(chunk, byteAt(row.emailStart), byteAt(row.emailEnd), encoding))
            : undefined,
        );
    },
    chunkStart / width,
    chunkStart === 0 ? bomBytes(chunk, encoding) / width : false,
  );
  tokenizer.push(units);
  tokenizer.finish();
  return rows;
}

const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const TAB = 0x09;

/**
 * readChunk for one byte a unit, in one pass without an object or a callback per row: RowTokenizer's
 * states as positions in the loop, and a cell that is printable ASCII with nothing to trim or unquote
 * read with one latin1 copy, which is its UTF-8 text as well.
 */
function readBytewide(chunk: Buffer, layout: ChunkLayout): ChunkRows {
  const { encoding, chunkStart } = layout;
  const delimiter = layout.delimiter.charCodeAt(0);
  const column = layout.emailColumn;
  const length = chunk.length;
  // element reads of a plain Uint8Array compile to faster code than a Buffer's (a third off this loop)
  const bytes = new Uint8Array(chunk.buffer, chunk.byteOffset, length);
  const rows = new ChunkRows(rowCapacityFor(length));
  // 1 for the bytes that end an unquoted field: one load a byte in the hot loops, not three compares
  const ends = new Uint8Array(256);
  ends[delimiter] = ends[LF] = ends[CR] = 1;
  const reader = new CellReader(
    chunk,
    encoding,
    rows,
    chunkStart,
    layout.headerStart ?? -1,
    layout.dataStart,
  );
  let rowStart = 0;
  let fieldStart = chunkStart === 0 ? bomBytes(chunk, encoding) : 0;
  let field = 0;
  let emailStart = -1;
  let emailEnd = -1;
  // the email cell is unquoted and every byte of it ASCII (known from the loop that finds its end)
  let emailAscii = false;
  let content = false;
  let i = fieldStart;
  while (i < length) {
    // a field's start: leading blanks are still its start (a quote after them is literal)
    let b = bytes[i]!;
    while ((b === SPACE || b === TAB) && b !== delimiter && ++i < length) b = bytes[i]!;
    if (i === length) break;
    if (b === QUOTE && i === fieldStart) {
      // a quoted field: to its closing quote, `""` being a quote inside it; a loop rather than indexOf,
      // as quoted cells are short and a native call costs more than their bytes
      i++;
      for (;;) {
        const from = i;
        while (i < length && bytes[i] !== QUOTE) i++;
        if (!content) content = hasContent(bytes, from, i);
        if (i === length || ++i === length) break;
        if (bytes[i] !== QUOTE) break;
        content = true;
        i++;
      }
      if (i === length) break;
      b = bytes[i]!;
      if (ends[b] === 0) {
        // text after the closing quote: the rest of the field is plain
        content = true;
        while (++i < length && ends[(b = bytes[i]!)] === 0);
      }
    } else if (ends[b] === 0) {
      content = true;
      if (field === column) {
        // the OR of the email cell's bytes: ASCII when under 0x80, which CellReader need not check again
        let bits = b;
        while (++i < length && ends[(b = bytes[i]!)] === 0) bits |= b;
        emailAscii = bits < 0x80;
      } else while (++i < length && ends[(b = bytes[i]!)] === 0);
    }
    if (i === length) break;
    // the field ends at i, on a delimiter or a line break
    if (field === column) {
      emailStart = fieldStart;
      emailEnd = i;
    }
    field++;
    if (b === delimiter) {
      fieldStart = ++i;
      continue;
    }
    const contentEnd = i;
    i += b === CR && i + 1 < length && bytes[i + 1] === LF ? 2 : 1;
    reader.row(rowStart, contentEnd, i, content, emailStart, emailEnd, emailAscii);
    rowStart = fieldStart = i;
    field = 0;
    emailStart = emailEnd = -1;
    emailAscii = false;
    content = false;
  }
  // a last row without a line ending (or cut inside quotes)
  if (length > rowStart) {
    if (field === column) {
      emailStart = fieldStart;
      emailEnd = length;
    }
    reader.row(rowStart, length, length, content, emailStart, emailEnd, emailAscii);
  }
  rows.emails = reader.takeEmails();
  return rows;
}

/** readBytewide's rows: each one's kind and offsets, and a data row's email cell as text. */
class CellReader {
  private readonly asciiIsText: boolean;
  /** The chunk's bytes as a plain Uint8Array (faster element reads than the Buffer's). */
  private readonly bytes: Uint8Array;
  /** Buffer's latin1 decoder, called without toString's argument checks (a call a row). */
  private readonly latin1: (start: number, end: number) => string;

  constructor(
    private readonly chunk: Buffer,
    private readonly encoding: string,
    private readonly rows: ChunkRows,
    private readonly chunkStart: number,
    private readonly headerStart: number,
    private readonly dataStart: number,
  ) {
    this.asciiIsText = encoding === 'utf-8';
    this.emails = new Array<string | undefined>(rows.kinds.length);
    this.bytes = new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length);
    this.latin1 = (chunk as Buffer & { latin1Slice(start: number, end: number): string }).latin1Slice;
  }

  /**
   * The data rows' cells, made at the rows' capacity and cut to length once read: pushing 50,000 cells
   * grows the array a dozen times, each a copy left to the collector.
   */
  private readonly emails: (string | undefined)[];
  private emailCount = 0;

  /** @param ascii the cell [from, to) is unquoted and all ASCII (readBytewide's loop saw its bytes) */
  row(
    start: number,
    contentEnd: number,
    end: number,
    content: boolean,
    from: number,
    to: number,
    ascii: boolean,
  ): void {
    const absolute = this.chunkStart + start;
    let kind: number = PASS;
    if (absolute === this.headerStart) kind = HEADER;
    else if (content && absolute >= this.dataStart) kind = DATA;
    this.rows.addCode(kind, start, contentEnd, end);
    if (kind === DATA) {
      // past the capacity (rows shorter than it assumes) this appends
      this.emails[this.emailCount++] = from >= 0 ? this.cell(from, to, ascii) : undefined;
    }
  }

  /** The data rows' cells, in order. */
  takeEmails(): (string | undefined)[] {
    this.emails.length = this.emailCount;
    return this.emails;
  }

  /**
   * The email cell's text, as cellText(decodeRange(...)) gives it: an ASCII cell with nothing to trim
   * is its latin1 text (UTF-8 decodes ASCII bytes, DEL included, to the same characters).
   */
  private cell(from: number, to: number, ascii: boolean): string {
    if (to === from) return '';
    if (ascii && this.asciiIsText) {
      const bytes = this.bytes;
      const first = bytes[from]!;
      if (first > SPACE && first !== QUOTE && bytes[to - 1]! > SPACE)
        return this.latin1.call(this.chunk, from, to);
    }
    return cellText(decodeRange(this.chunk, from, to, this.encoding));
  }
}

/** Any byte in bytes[from, to) that is not blank (space, tab, CR, LF). */
function hasContent(bytes: Uint8Array, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const b = bytes[i]!;
    if (b !== SPACE && b !== TAB && b !== CR && b !== LF) return true;
  }
  return false;
}

/**
 * The chunk's part of the results file.
 * @param statuses one status per data row of `rows`, in order: the status, or the row's verdict (the
 *   validator passes its verdicts as they are, rather than a second array of their statuses)
 * @param allocate where the part's bytes go (the validator's reusable buffers); contents may be stale
 */
export function annotateChunk(
  chunk: Buffer,
  rows: ChunkRows,
  layout: Pick<ChunkLayout, 'delimiter' | 'encoding'>,
  statuses: readonly (string | { status: string })[],
  allocate: (bytes: number) => Buffer = Buffer.allocUnsafe,
): Buffer {
  // The appended bytes of each label, encoded once per chunk; most rows repeat the row before's label,
  // which skips the map.
  const appended = new Map<string, Buffer>();
  let lastLabel: string | undefined;
  let lastBytes: Buffer | undefined;
  const bytesOf = (label: string): Buffer => {
    if (label === lastLabel) return lastBytes!;
    let bytes = appended.get(label);
    if (!bytes) appended.set(label, (bytes = encodeAscii(layout.delimiter + label, layout.encoding)));
    lastLabel = label;
    lastBytes = bytes;
    return bytes;
  };
  const { count, kinds, contentEnds } = rows;
  let extra = 0;
  let labelled = 0;
  for (let row = 0; row < count; row++) {
    const kind = kinds[row];
    if (kind === PASS) continue;
    const status = kind === HEADER ? statusColumnHeader : statuses[labelled];
    if (status === undefined) throw new Error('annotateChunk: fewer statuses than data rows');
    if (kind === DATA) labelled++;
    extra += bytesOf(typeof status === 'string' ? status : status.status).length;
  }
  // The chunk goes in with one copy; then, from the last row back, the bytes after each row's content
  // move up by the labels still to insert before them (copyWithin: a memmove that allocates nothing,
  // where a copy from the chunk a row would cost a subarray object a row), and the row's label goes in
  // the gap. Rows are contiguous and in order, so this is every row's bytes with its label inserted.
  const out = allocate(chunk.length + extra);
  out.set(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length), 0);
  let shift = extra;
  let moveEnd = chunk.length;
  let next = labelled;
  for (let row = count - 1; row >= 0 && shift > 0; row--) {
    const kind = kinds[row];
    if (kind === PASS) continue;
    const status = kind === HEADER ? statusColumnHeader : statuses[--next]!;
    const label = bytesOf(typeof status === 'string' ? status : status.status);
    const contentEnd = contentEnds[row]!;
    out.copyWithin(contentEnd + shift, contentEnd, moveEnd);
    shift -= label.length;
    let at = contentEnd + shift;
    for (let i = 0; i < label.length; i++) out[at++] = label[i]!;
    moveEnd = contentEnd;
  }
  return out;
}
