// Reads the rows of one chunk and writes the chunk's part of the results file: every row's original
// bytes, then the delimiter and its status (in the file's encoding) before the row's line ending. The
// header row gets `mailvet_status`; pass-through lines (blank rows, an Excel `sep=` line, a preamble)
// stay as they are; a last row without a line ending stays so.
import type { Dialect } from './dialect';
import { bomBytes, decodeRange, encodeAscii, unitBytes, unitView } from './encoding';
import { cellText, RowTokenizer } from './row-tokenizer';

export const statusColumnHeader = 'mailvet_status';

export type ChunkRowKind = 'header' | 'data' | 'pass';

/** A row of a chunk, offsets (bytes) relative to the chunk's first byte. */
export interface ChunkRow {
  kind: ChunkRowKind;
  start: number;
  contentEnd: number;
  end: number;
  /** The email cell's text ('' when blank); undefined when the row has too few columns. */
  email: string | undefined;
}

/** What a validator knows of the file it reads a chunk of (the chunk message carries it). */
export type ChunkLayout = Pick<Dialect, 'delimiter' | 'encoding' | 'headerStart' | 'dataStart'> & {
  emailColumn: number;
  /** Byte offset of the chunk in the file. */
  chunkStart: number;
};

/** Tokenizes a chunk (whole rows) of a file. */
export function readChunkRows(chunk: Buffer, layout: ChunkLayout): ChunkRow[] {
  const { encoding, chunkStart } = layout;
  const width = unitBytes(encoding);
  const units = unitView(chunk, encoding);
  const end = chunkStart + chunk.length;
  // Units are bytes except in UTF-16, where a stray odd last byte makes the last unit end past the chunk.
  const byteAt =
    width === 1
      ? (unit: number) => unit - chunkStart
      : (unit: number) => Math.min(unit * 2, end) - chunkStart;
  const rows: ChunkRow[] = [];
  const tokenizer = new RowTokenizer(
    layout.delimiter.charCodeAt(0),
    layout.emailColumn,
    (row) => {
      const start = byteAt(row.start);
      const absolute = chunkStart + start;
      let kind: ChunkRowKind = 'pass';
      if (absolute === layout.headerStart) kind = 'header';
      else if (!row.blank && absolute >= layout.dataStart) kind = 'data';
      rows.push({
        kind,
        start,
        contentEnd: byteAt(row.contentEnd),
        end: byteAt(row.end),
        email:
          kind === 'data' && row.emailStart >= 0
            ? cellText(decodeRange(chunk, byteAt(row.emailStart), byteAt(row.emailEnd), encoding))
            : undefined,
      });
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
  rows: ChunkRow[],
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
  let extra = 0;
  let next = 0;
  for (const row of rows) {
    if (row.kind === 'pass') continue;
    const label = row.kind === 'header' ? statusColumnHeader : statuses[next++];
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
  for (const row of rows) {
    if (row.start !== to) {
      at += chunk.copy(out, at, from, to);
      from = row.start;
    }
    to = row.end;
    if (row.kind === 'pass') continue;
    const label = bytesOf(row.kind === 'header' ? statusColumnHeader : statuses[next++]!);
    at += chunk.copy(out, at, from, row.contentEnd);
    for (let i = 0; i < label.length; i++) out[at++] = label[i]!;
    from = row.contentEnd;
  }
  chunk.copy(out, at, from, to);
  return out;
}
