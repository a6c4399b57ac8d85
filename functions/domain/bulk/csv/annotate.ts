// Reads the rows of one chunk and writes the chunk's part of the results file: every row's original
// bytes, then the delimiter and its status (in the file's encoding) before the row's line ending. The
// header row gets `mailvet_status`; pass-through lines (blank rows, an Excel `sep=` line, a preamble)
// stay as they are; a last row without a line ending stays so.
import type { Dialect } from './dialect';
import { bomBytes, decodeRange, encodeAscii, unitBytes, unitView } from './encoding';
import { cellText, RowTokenizer } from './row-tokenizer';

export const statusColumnHeader = 'mailvet_status';

export type ChunkRowKind = 'header' | 'data' | 'pass';

const kindCodes = { pass: 0, header: 1, data: 2 } as const;
const PASS = kindCodes.pass;
const HEADER = kindCodes.header;
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
  readonly emails: (string | undefined)[] = [];

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
    if (this.count === this.kinds.length) this.grow();
    const at = this.count++;
    this.kinds[at] = kindCodes[kind];
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

/** Tokenizes a chunk (whole rows) of a file. */
export function readChunk(chunk: Buffer, layout: ChunkLayout): ChunkRows {
  const { encoding, chunkStart } = layout;
  const width = unitBytes(encoding);
  const units = unitView(chunk, encoding);
  const end = chunkStart + chunk.length;
  // Units are bytes except in UTF-16, where a stray odd last byte makes the last unit end past the chunk.
  const byteAt =
    width === 1
      ? (unit: number) => unit - chunkStart
      : (unit: number) => Math.min(unit * 2, end) - chunkStart;
  // rows of the bench's file are ~95 bytes; the arrays grow when rows are shorter
  const rows = new ChunkRows(Math.ceil(chunk.length / 64));
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

/**
 * The chunk's part of the results file.
 * @param statuses one status per data row of `rows`, in order
 */
export function annotateChunk(
  chunk: Buffer,
  rows: ChunkRows,
  layout: Pick<ChunkLayout, 'delimiter' | 'encoding'>,
  statuses: readonly string[],
): Buffer {
  // The appended bytes of each label, encoded once per chunk.
  const appended = new Map<string, Buffer>();
  const bytesOf = (label: string): Buffer => {
    let bytes = appended.get(label);
    if (!bytes) appended.set(label, (bytes = encodeAscii(layout.delimiter + label, layout.encoding)));
    return bytes;
  };
  const { count, kinds, starts, contentEnds, ends } = rows;
  let extra = 0;
  let next = 0;
  for (let row = 0; row < count; row++) {
    const kind = kinds[row];
    if (kind === PASS) continue;
    const label = kind === HEADER ? statusColumnHeader : statuses[next++];
    if (label === undefined) throw new Error('annotateChunk: fewer statuses than data rows');
    extra += bytesOf(label).length;
  }
  const out = Buffer.allocUnsafe(chunk.length + extra);
  let at = 0;
  next = 0;
  // Rows follow each other: the bytes from one insertion point to the next go in one copy, and a
  // label (a few ASCII bytes) byte by byte, rather than three copies a row.
  let from = 0;
  let to = 0;
  for (let row = 0; row < count; row++) {
    const start = starts[row]!;
    if (start !== to) {
      at += chunk.copy(out, at, from, to);
      from = start;
    }
    to = ends[row]!;
    const kind = kinds[row];
    if (kind === PASS) continue;
    const label = bytesOf(kind === HEADER ? statusColumnHeader : statuses[next++]!);
    const contentEnd = contentEnds[row]!;
    at += chunk.copy(out, at, from, contentEnd);
    for (let i = 0; i < label.length; i++) out[at++] = label[i]!;
    from = contentEnd;
  }
  chunk.copy(out, at, from, to);
  return out;
}
