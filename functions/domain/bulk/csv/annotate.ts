// Reads the rows of one chunk and writes the chunk's part of the results file: every row's original
// bytes, then the delimiter and its status before the row's line ending. Header rows get
// `mailvet_status`; empty lines pass through unchanged; a last row without a line ending stays so.
import { fieldText, RowTokenizer } from './row-tokenizer';

export const statusColumnHeader = 'mailvet_status';

export type ChunkRowKind = 'header' | 'data' | 'empty';

/** A row of a chunk, offsets relative to the chunk's first byte. */
export interface ChunkRow {
  kind: ChunkRowKind;
  start: number;
  contentEnd: number;
  end: number;
  /** The email cell's text ('' when blank); undefined when the row has too few columns. */
  email: string | undefined;
}

/**
 * Tokenizes a chunk (whole rows) of a file.
 * @param atFileStart the chunk starts at byte 0 (a BOM there is not part of the first cell)
 * @param headerRow the chunk's first row is the file's header
 */
export function readChunkRows(
  chunk: Buffer,
  delimiter: string,
  emailColumn: number,
  atFileStart: boolean,
  headerRow: boolean,
): ChunkRow[] {
  const rows: ChunkRow[] = [];
  let headerPending = headerRow;
  const tokenizer = new RowTokenizer(
    delimiter.charCodeAt(0),
    emailColumn,
    (row) => {
      // The header is the first non-empty row of the file (empty lines before it stay empty lines).
      let kind: ChunkRowKind = row.contentEnd === row.start ? 'empty' : 'data';
      if (kind === 'data' && headerPending) {
        kind = 'header';
        headerPending = false;
      }
      rows.push({
        kind,
        start: row.start,
        contentEnd: row.contentEnd,
        end: row.end,
        email:
          kind === 'data' && row.emailStart >= 0
            ? fieldText(chunk.subarray(row.emailStart, row.emailEnd))
            : undefined,
      });
    },
    0,
    atFileStart,
  );
  tokenizer.push(chunk);
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
  delimiter: string,
  statuses: readonly string[],
): Buffer {
  const delimiterByte = delimiter.charCodeAt(0);
  let extra = 0;
  let next = 0;
  for (const row of rows) {
    if (row.kind === 'empty') continue;
    const label = row.kind === 'header' ? statusColumnHeader : statuses[next++];
    if (label === undefined) throw new Error('annotateChunk: fewer statuses than data rows');
    extra += 1 + label.length;
  }
  const out = Buffer.allocUnsafe(chunk.length + extra);
  let at = 0;
  next = 0;
  for (const row of rows) {
    if (row.kind === 'empty') {
      at += chunk.copy(out, at, row.start, row.end);
      continue;
    }
    const label = row.kind === 'header' ? statusColumnHeader : statuses[next++]!;
    at += chunk.copy(out, at, row.start, row.contentEnd);
    out[at++] = delimiterByte;
    at += out.write(label, at, 'latin1');
    at += chunk.copy(out, at, row.contentEnd, row.end);
  }
  return out;
}
