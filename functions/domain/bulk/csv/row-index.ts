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
import type { ChunkRows } from './annotate';
import { ROW_KIND_CODES, statusColumnHeader } from './annotate';
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
  rows: ChunkRows,
  verdicts: readonly RowVerdict[],
  encoding: TextEncoding = 'utf-8',
): Buffer {
  // The appended delimiter and status are written in the file's encoding: 2 bytes a character in UTF-16.
  const width = unitBytes(encoding);
  // Written straight into bytes, not a string per row (a chunk has ~45,000 rows): the engine's verdicts
  // are a few shared objects, so each one's ` d <status> <reason>\n` is encoded once.
  const { count, kinds, starts, contentEnds, ends } = rows;
  const out = new IndexWriter(count * 48);
  const tails = new Map<RowVerdict, Buffer>();
  // most rows have the row before's verdict: that skips the map
  let lastVerdict: RowVerdict | undefined;
  let lastTail: Buffer = passTail;
  let next = 0;
  for (let row = 0; row < count; row++) {
    const eol = ends[row]! - contentEnds[row]!;
    const content = contentEnds[row]! - starts[row]!;
    const kind = kinds[row];
    if (kind === PASS) out.line(content, eol, passTail);
    else if (kind === HEADER) out.line(content + (1 + statusColumnHeader.length) * width, eol, headerTail);
    else {
      const verdict = verdicts[next++];
      if (!verdict) throw new Error('indexChunk: fewer verdicts than data rows');
      if (verdict !== lastVerdict) {
        let tail = tails.get(verdict);
        if (!tail)
          tails.set(verdict, (tail = Buffer.from(` d ${verdict.status} ${verdict.reason}\n`, 'latin1')));
        lastVerdict = verdict;
        lastTail = tail;
      }
      out.line(content + (1 + verdict.status.length) * width, eol, lastTail);
    }
  }
  return out.bytes();
}

const PASS = ROW_KIND_CODES.pass;
const HEADER = ROW_KIND_CODES.header;
const passTail = Buffer.from(' e\n', 'latin1');
const headerTail = Buffer.from(' h\n', 'latin1');

/** Index lines as latin1 bytes, in a buffer that grows as needed. */
class IndexWriter {
  private buffer: Buffer;
  private at = 0;

  constructor(capacity: number) {
    this.buffer = Buffer.allocUnsafe(Math.max(64, capacity));
  }

  /** `<content> <eol>` and the tail (` <kind>...\n`). */
  line(content: number, eol: number, tail: Buffer): void {
    // two numbers of at most 16 digits and a space
    this.room(33 + tail.length);
    this.number(content);
    this.buffer[this.at++] = 0x20;
    this.number(eol);
    const buffer = this.buffer;
    let at = this.at;
    for (let i = 0; i < tail.length; i++) buffer[at++] = tail[i]!;
    this.at = at;
  }

  bytes(): Buffer {
    return this.buffer.subarray(0, this.at);
  }

  /** A non-negative integer's decimal digits. */
  private number(value: number): void {
    if (!Number.isSafeInteger(value) || value < 0) {
      this.at += this.buffer.write(String(value), this.at, 'latin1');
      return;
    }
    let digits = 1;
    for (let rest = value; rest >= 10; rest = Math.floor(rest / 10)) digits++;
    const end = this.at + digits;
    let rest = value;
    for (let i = end - 1; i >= this.at; i--) {
      this.buffer[i] = 0x30 + (rest % 10);
      rest = Math.floor(rest / 10);
    }
    this.at = end;
  }

  private room(bytes: number): void {
    if (this.at + bytes <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.at + bytes));
    this.buffer.copy(grown, 0, 0, this.at);
    this.buffer = grown;
  }
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
