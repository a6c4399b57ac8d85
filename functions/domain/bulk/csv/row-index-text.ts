// The text row index that jobs completed before the binary format (row-index.ts) have in S3, one line
// per row, read for as long as such a job's results live:
//
//   <content bytes> <line-ending bytes> <kind> [<status> <reason> [u]]\n
//
// kind is `h`, `e` or `d` as in row-index.ts; `u` marks a duplicate.

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

/** The text index line of a row (without its newline). */
export function formatIndexLine(row: IndexedRow): string {
  const head = `${row.contentBytes} ${row.eolBytes} ${row.kind}`;
  if (row.kind !== 'd') return head;
  return `${head} ${row.status} ${row.reason}${row.duplicate ? ' u' : ''}`;
}

/** One text index line back to its row; throws on a line the text format cannot hold. */
export function parseIndexLine(line: string): IndexedRow {
  const [content, eol, kind, status, reason, mark] = line.split(' ');
  const contentBytes = Number(content);
  const eolBytes = Number(eol);
  if (!Number.isInteger(contentBytes) || !Number.isInteger(eolBytes))
    throw new Error(`bad row index line: ${line}`);
  if ((kind === 'h' || kind === 'e') && status === undefined) return { kind, contentBytes, eolBytes };
  if (kind === 'd' && status && reason && mark === undefined)
    return { kind, contentBytes, eolBytes, status, reason };
  if (kind === 'd' && status && reason && mark === 'u')
    return { kind, contentBytes, eolBytes, status, reason, duplicate: true };
  throw new Error(`bad row index line: ${line}`);
}
