// The first rows of a CSV as the service will read them: the service's own delimiter and header
// detection and its own tokenizer (imported from functions/, not copied), run on the file's first bytes.
import { detectDialect, looksLikeEmail, type Delimiter } from '../../functions/domain/bulk/csv/dialect';
import {
  bomBytes,
  decodeText,
  unitBytes,
  unitView,
  type TextEncoding,
} from '../../functions/domain/bulk/csv/encoding';
import { cellText, RowTokenizer } from '../../functions/domain/bulk/csv/row-tokenizer';

/** How much of the file the preview reads: enough for the detection's 50 sample rows in most files. */
export const previewSampleBytes = 64 * 1024;
/** Columns shown and offered; a wider file still works, its further columns are just not offered here. */
const maxColumns = 50;
const sampleRows = 50;

export interface CsvPreview {
  /** The text encoding the service detects (utf-8, utf-16le, windows-1252, shift_jis, ...). */
  encoding: TextEncoding;
  delimiter: Delimiter;
  hasHeader: boolean;
  /**
   * No address in the sample (and more file after it): the service decides at its scan, taking the
   * first row as a header when a later row of the file holds an address.
   */
  headerPending: boolean;
  /** The email column the detection ran for (the one chosen, or the best guess). */
  emailColumn: number;
  /** One label per column: the header's text when there is a header, else "Column N". */
  columns: string[];
  /** The first data rows' cells (header excluded), as the service reads them. */
  rows: string[][];
}

export const delimiterNames: Record<Delimiter, string> = {
  ',': 'comma',
  ';': 'semicolon',
  '\t': 'tab',
  '|': 'pipe',
};

/**
 * The cells of the sample's first non-empty rows from `from` (a byte offset) under the dialect,
 * tokenized and decoded the service's way: the tokenizer reads the encoding's unit view (UTF-16
 * narrowed to one byte a unit) and each cell's bytes are decoded in the file's encoding.
 */
function readCells(
  sample: Buffer,
  dialect: { delimiter: Delimiter; encoding: TextEncoding },
  from: number,
  wholeFile: boolean,
): string[][] {
  const { encoding } = dialect;
  const width = unitBytes(encoding);
  const units = unitView(sample, encoding);
  const bom = bomBytes(sample, encoding) / width;
  const cellsOf = (column: number): { fields: number; text: string | undefined }[] => {
    const rows: { fields: number; text: string | undefined }[] = [];
    const tokenizer = new RowTokenizer(
      dialect.delimiter.charCodeAt(0),
      column,
      (row) => {
        if (row.contentEnd <= row.start || row.start * width < from || rows.length >= sampleRows) return;
        rows.push({
          fields: row.fields,
          text:
            row.emailStart < 0
              ? undefined
              : cellText(decodeText(sample.subarray(row.emailStart * width, row.emailEnd * width), encoding)),
        });
      },
      0,
      bom,
    );
    tokenizer.push(units);
    if (wholeFile) tokenizer.finish();
    return rows;
  };
  const first = cellsOf(0);
  const columnCount = Math.min(maxColumns, Math.max(1, ...first.map((r) => r.fields)));
  const table = first.map((r) => [r.text ?? '']);
  for (let column = 1; column < columnCount; column++)
    cellsOf(column).forEach((r, i) => table[i]?.push(r.text ?? ''));
  return table;
}

/** The column whose cells most often look like addresses; 0 when none does. */
function guessEmailColumn(table: string[][]): number {
  let best = 0;
  let bestHits = 0;
  const width = Math.max(0, ...table.map((r) => r.length));
  for (let column = 0; column < width; column++) {
    const hits = table.filter((r) => looksLikeEmail(r[column] ?? '')).length;
    if (hits > bestHits) {
      best = column;
      bestHits = hits;
    }
  }
  return best;
}

/**
 * Reads the sample the way the service will. Without `emailColumn` the column is guessed (the one
 * holding addresses), because the service's header detection looks at the chosen column.
 * @param sample the file's first bytes (up to previewSampleBytes)
 * @param wholeFile true when the sample is the whole file (its last row is then complete)
 */
export function previewCsv(
  sample: Uint8Array,
  wholeFile: boolean,
  emailColumn?: number,
  maxRows = 5,
): CsvPreview {
  const bytes = Buffer.from(sample.buffer, sample.byteOffset, sample.byteLength);
  let column = emailColumn ?? 0;
  let dialect = detectDialect(bytes, column, wholeFile);
  // From the header (or the first data row): an Excel `sep=` line and a preamble are not shown.
  const read = () => readCells(bytes, dialect, dialect.headerStart ?? dialect.dataStart, wholeFile);
  let table = read();
  if (emailColumn === undefined) {
    column = guessEmailColumn(table);
    dialect = detectDialect(bytes, column, wholeFile);
    table = read();
  }
  const width = Math.max(1, column + 1, ...table.map((r) => r.length));
  const header = dialect.hasHeader ? table[0] : undefined;
  const columns = Array.from({ length: width }, (_, i) => {
    const title = header?.[i];
    return title ? title : `Column ${i + 1}`;
  });
  const rows = (dialect.hasHeader ? table.slice(1) : table).slice(0, maxRows);
  return {
    encoding: dialect.encoding,
    delimiter: dialect.delimiter,
    hasHeader: dialect.hasHeader,
    headerPending: dialect.pendingHeader !== undefined,
    emailColumn: column,
    columns,
    rows,
  };
}
