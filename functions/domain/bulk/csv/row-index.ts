// The row index of a results file: one text line per row of the file, in order, written beside each
// chunk's part and joined beside the results file. It is what lets a filtered or reason-column copy of
// the results be made in one streaming pass without parsing CSV again:
//
//   <content bytes> <line-ending bytes> <kind> [<status> <reason> [u]]\n
//
// kind is `h` (header), `e` (a pass-through line: blank, `sep=`, preamble, no non-blank cell) or `d` (data row, followed by
// its status and the engine's reason, and `u` when the row repeats an earlier row's address: the
// assembly adds it, domain/bulk/duplicates.ts). Content bytes count the row as the results file holds it (its
// `mailvet_status` field included) up to its line ending.
import type { ChunkRow } from './annotate';
import { statusColumnHeader } from './annotate';
import { encodeAscii, unitBytes, type TextEncoding } from './encoding';

export interface RowVerdict {
  status: string;
  reason: string;
}

export type IndexedRow =
  | { kind: 'h'; contentBytes: number; eolBytes: number }
  | { kind: 'e'; contentBytes: number; eolBytes: number }
  | {
      kind: 'd';
      contentBytes: number;
      eolBytes: number;
      status: string;
      reason: string;
      /** The row's address appeared earlier in the file. */
      duplicate?: boolean;
    };

/** The index lines of one annotated chunk part (rows as readChunkRows gave them, verdicts per data row). */
export function indexChunk(
  rows: readonly ChunkRow[],
  verdicts: readonly RowVerdict[],
  encoding: TextEncoding = 'utf-8',
): Buffer {
  // The appended delimiter and status are written in the file's encoding: 2 bytes a character in UTF-16.
  const width = unitBytes(encoding);
  const lines: string[] = [];
  let next = 0;
  for (const row of rows) {
    const eol = row.end - row.contentEnd;
    const content = row.contentEnd - row.start;
    if (row.kind === 'pass') lines.push(`${content} ${eol} e\n`);
    else if (row.kind === 'header')
      lines.push(`${content + (1 + statusColumnHeader.length) * width} ${eol} h\n`);
    else {
      const verdict = verdicts[next++];
      if (!verdict) throw new Error('indexChunk: fewer verdicts than data rows');
      lines.push(
        `${content + (1 + verdict.status.length) * width} ${eol} d ${verdict.status} ${verdict.reason}\n`,
      );
    }
  }
  return Buffer.from(lines.join(''), 'latin1');
}

/** The index line of a row (without its newline). */
export function formatIndexLine(row: IndexedRow): string {
  const head = `${row.contentBytes} ${row.eolBytes} ${row.kind}`;
  if (row.kind !== 'd') return head;
  return `${head} ${row.status} ${row.reason}${row.duplicate ? ' u' : ''}`;
}

/** One index line back to its row; throws on a line this module did not write. */
export function parseIndexLine(line: string): IndexedRow {
  const [content, eol, kind, status, reason, mark] = line.split(' ');
  const contentBytes = Number(content);
  const eolBytes = Number(eol);
  if (!Number.isInteger(contentBytes) || !Number.isInteger(eolBytes))
    throw new Error(`bad row index line: ${line}`);
  if (kind === 'h' || kind === 'e') return { kind, contentBytes, eolBytes };
  if (kind === 'd' && status && reason && mark === undefined)
    return { kind, contentBytes, eolBytes, status, reason };
  if (kind === 'd' && status && reason && mark === 'u')
    return { kind, contentBytes, eolBytes, status, reason, duplicate: true };
  throw new Error(`bad row index line: ${line}`);
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
 * The bytes of one row in the variant (undefined: the row is left out). The row's own bytes are never
 * changed: a reason goes between its content and its line ending, as the status did.
 */
export function variantRow(row: IndexedRow, bytes: Buffer, variant: ResultsVariant): Buffer | undefined {
  if (row.kind === 'e') return bytes;
  if (row.kind === 'd' && variant.statuses && !variant.statuses.has(row.status)) return undefined;
  if (row.kind === 'd' && variant.unique && row.duplicate) return undefined;
  if (!variant.reason) return bytes;
  const label = row.kind === 'h' ? reasonColumnHeader : row.reason;
  return Buffer.concat([
    bytes.subarray(0, row.contentBytes),
    encodeAscii(variant.delimiter + label, variant.encoding),
    bytes.subarray(row.contentBytes),
  ]);
}
