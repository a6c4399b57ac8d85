// Detects a CSV's delimiter and whether its first row is a header, from the first rows of the file.
import { fieldText, RowTokenizer, type RowBounds } from './row-tokenizer';

export const delimiters = [',', ';', '\t', '|'] as const;
export type Delimiter = (typeof delimiters)[number];

export interface Dialect {
  delimiter: Delimiter;
  hasHeader: boolean;
}

/** Rows of the sample that detection looks at. */
const sampleRows = 50;

const delimiterChars = /[\s@,;|"]/;

/** Loose shape of an address: something@something.something, with no delimiter or space in it. */
export function looksLikeEmail(text: string): boolean {
  const at = text.indexOf('@');
  if (at <= 0 || at !== text.lastIndexOf('@')) return false;
  const local = text.slice(0, at);
  const domain = text.slice(at + 1);
  if (delimiterChars.test(local) || delimiterChars.test(domain)) return false;
  const dot = domain.lastIndexOf('.');
  return dot > 0 && dot < domain.length - 1;
}

interface SampleRow {
  fields: number;
  email: string | undefined;
}

/** The sample's non-empty rows, tokenized with `delimiter`; the last row is dropped unless the sample is the whole file. */
function tokenize(sample: Buffer, delimiter: string, emailColumn: number, wholeFile: boolean): SampleRow[] {
  const rows: RowBounds[] = [];
  const tokenizer = new RowTokenizer(delimiter.charCodeAt(0), emailColumn, (row) => rows.push(row), 0, true);
  tokenizer.push(sample);
  if (wholeFile) tokenizer.finish();
  return rows
    .filter((row) => row.contentEnd > row.start)
    .slice(0, sampleRows)
    .map((row) => ({
      fields: row.fields,
      email: row.emailStart < 0 ? undefined : fieldText(sample.subarray(row.emailStart, row.emailEnd)),
    }));
}

function score(rows: SampleRow[]): number {
  if (rows.length === 0) return 0;
  const emailHits = rows.filter((r) => r.email !== undefined && looksLikeEmail(r.email)).length;
  const counts = new Map<number, number>();
  for (const r of rows) counts.set(r.fields, (counts.get(r.fields) ?? 0) + 1);
  let modal = 1;
  let modalRows = 0;
  for (const [fields, n] of counts) {
    if (n > modalRows || (n === modalRows && fields > modal)) {
      modal = fields;
      modalRows = n;
    }
  }
  // Address-shaped cells in the chosen column decide first; then a consistent column count; then
  // whether the delimiter occurs at all (a one-column file reads the same under every candidate).
  return emailHits * 1_000_000 + modalRows * 1_000 + (modal > 1 ? 100 : 0);
}

/**
 * Detects the dialect from the first bytes of a file.
 * @param sample the file's first bytes (at least a few rows when the file has them)
 * @param wholeFile true when the sample is the entire file, so its last row is complete
 */
export function detectDialect(sample: Buffer, emailColumn: number, wholeFile: boolean): Dialect {
  let best: { delimiter: Delimiter; score: number; rows: SampleRow[] } | undefined;
  for (const delimiter of delimiters) {
    let rows = tokenize(sample, delimiter, emailColumn, wholeFile);
    // A sample cut inside the first row (a huge first row) still says something about that row.
    if (rows.length === 0 && !wholeFile) rows = tokenize(sample, delimiter, emailColumn, true);
    const s = score(rows);
    if (!best || s > best.score) best = { delimiter, score: s, rows };
  }
  const chosen = best!;
  return { delimiter: chosen.delimiter, hasHeader: isHeader(chosen.rows) };
}

/**
 * The first row is a header when its email cell does not look like an address and a later row's does.
 * A lone row is a header when its email cell holds no `@` at all (a column title such as "email"), so a
 * file holding only a header has no data rows.
 */
function isHeader(rows: SampleRow[]): boolean {
  const [first, ...rest] = rows;
  if (!first) return false;
  if (first.email !== undefined && looksLikeEmail(first.email)) return false;
  if (rest.length === 0) return first.email !== undefined && !first.email.includes('@');
  return rest.some((r) => r.email !== undefined && looksLikeEmail(r.email));
}
