// Detects a CSV's dialect from the first bytes of the file (the sample): its encoding, delimiter, an
// Excel `sep=` line, a preamble and the header row. docs/bulk.md ("Dialect") states the rules.
import { extractAddress } from '../../validation/extract-address';
import {
  bomBytes,
  decodeText,
  detectEncoding,
  unitBytes,
  unitView,
  UnitStream,
  type TextEncoding,
} from './encoding';
import { cellText, RowTokenizer, type RowBounds } from './row-tokenizer';

export const delimiters = [',', ';', '\t', '|'] as const;
export type Delimiter = (typeof delimiters)[number];

/** What the scan decides once for a file; stored with the job and sent with every chunk. Offsets in bytes. */
export interface Dialect {
  delimiter: Delimiter;
  encoding: TextEncoding;
  hasHeader: boolean;
  /** Byte offset of the header row, when there is one. */
  headerStart?: number;
  /** Rows starting before this byte offset (an Excel `sep=` line, a preamble, the header) get no status. */
  dataStart: number;
}

/** A byte range of the file: one row. */
export interface RowSpan {
  start: number;
  end: number;
}

/** The dialect, possibly with the header question left to the scan (no address in the sample). */
export interface DialectGuess extends Dialect {
  /** The header candidate: a header if a later row of the file holds an address, else a data row. */
  pendingHeader?: RowSpan;
}

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

/** A cell that holds an address (extraction rules included) or several (a cell of an email column all the same). */
export function holdsAddress(cell: string | undefined): boolean {
  if (cell === undefined || !cell.includes('@')) return false;
  const address = extractAddress(cell);
  return address === null || looksLikeEmail(address);
}

/** Email-column titles in the languages our users export from, compared without case, accents, spaces or punctuation. */
const emailTitles = new Set([
  'email',
  'emails',
  'mail',
  'emailaddress',
  'emailaddresses',
  'mailaddress',
  'emailid',
  'courriel',
  'adressecourriel',
  'adresseemail',
  'adressemail',
  'adresseelectronique',
  'correo',
  'correoelectronico',
  'direcciondecorreo',
  'direcciondecorreoelectronico',
  'eposta',
  'epostaadresi',
  'epost',
  'epostadresse',
  'emailadresse',
  'emailadres',
  'mailadresse',
  'mailadres',
  'sahkoposti',
  'indirizzoemail',
  'postaelettronica',
  'enderecodeemail',
  'adresemail',
  'почта',
  'электроннаяпочта',
  'メール',
  'メールアドレス',
  '电子邮件',
  '邮箱',
  '電子郵件',
  '이메일',
]);

/** A cell that reads like the title of an email column ("Email", "E-mail Address", "Courriel", "Work email"). */
function isEmailTitle(cell: string | undefined): boolean {
  if (cell === undefined || cell.length > 40) return false;
  const key = cell
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]/gu, '');
  if (emailTitles.has(key)) return true;
  // "Work email", "Primary Email Address", "Contact e-mail"
  return key.length <= 24 && (key.endsWith('email') || key.endsWith('emailaddress'));
}

interface SampleRow extends RowSpan {
  fields: number;
  email: string | undefined;
}

/** Excel's `sep=X` first line: the delimiter it names (when one of ours) and where the line ends (units). */
function excelSepLine(
  units: Buffer,
  bom: number,
  wholeFile: boolean,
): { delimiter: Delimiter | undefined; end: number } | undefined {
  const head = units.toString('latin1', bom, bom + 12);
  const match = /^"?sep=([^\r\n])"?(\r\n|\n|\r|$)/i.exec(head);
  if (!match || (match[2] === '' && !(wholeFile && bom + head.length === units.length))) return undefined;
  const named = delimiters.find((d) => d === match[1]);
  return { delimiter: named, end: bom + match[0].length };
}

/**
 * The rows of the sample under `delimiter` that are neither blank nor before `from` (last row only when
 * complete), and whether the delimiter occurs at all: rows of empty fields (`,,`) count for that.
 */
function sampleRows(
  units: Buffer,
  bom: number,
  from: number,
  delimiter: string,
  emailColumn: number,
  wholeFile: boolean,
  cell: (start: number, end: number) => string,
): { rows: SampleRow[]; occurs: boolean } {
  const bounds: RowBounds[] = [];
  const tokenizer = new RowTokenizer(
    delimiter.charCodeAt(0),
    emailColumn,
    (row) => bounds.push({ ...row }),
    0,
    bom,
  );
  tokenizer.push(units);
  if (wholeFile) tokenizer.finish();
  const read = bounds.filter((row) => row.start >= from);
  const rows = read
    .filter((row) => !row.blank)
    .map((row) => ({
      start: row.start,
      end: row.end,
      fields: row.fields,
      email: row.emailStart < 0 ? undefined : cell(row.emailStart, row.emailEnd),
    }));
  return { rows, occurs: read.some((row) => row.fields > 1) };
}

interface Candidate {
  delimiter: Delimiter;
  rows: SampleRow[];
  occurs: boolean;
  addresses: number;
  modalRows: number;
  modal: number;
}

function candidate(delimiter: Delimiter, rows: SampleRow[], occurs: boolean): Candidate {
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
  return {
    delimiter,
    rows,
    occurs,
    addresses: rows.filter((r) => holdsAddress(r.email)).length,
    modalRows,
    modal,
  };
}

/**
 * Tie rules, in order: a delimiter that occurs (outside quotes, in any row) beats one that never does,
 * whatever the other counts say; then more
 * address cells in the email column; then more rows with the most common column count; then more
 * columns; then the order `,` `;` tab `|`.
 */
function better(a: Candidate, b: Candidate): boolean {
  if (a.occurs !== b.occurs) return a.occurs;
  if (a.addresses !== b.addresses) return a.addresses > b.addresses;
  if (a.modalRows !== b.modalRows) return a.modalRows > b.modalRows;
  return a.modal > b.modal;
}

/**
 * Detects the dialect from the first bytes of a file.
 * @param sample the file's first bytes, not ending inside a quoted cell (see SampleProbe)
 * @param wholeFile true when the sample is the entire file, so its last row is complete
 */
export function detectDialect(sample: Buffer, emailColumn: number, wholeFile: boolean): DialectGuess {
  const encoding = detectEncoding(sample, wholeFile);
  const width = unitBytes(encoding);
  const units = unitView(sample, encoding);
  const bom = bomBytes(sample, encoding) / width;
  const cell = (start: number, end: number) =>
    cellText(decodeText(sample.subarray(start * width, end * width), encoding));
  const sep = excelSepLine(units, bom, wholeFile);
  const from = sep?.end ?? 0;

  let best: Candidate | undefined;
  for (const delimiter of sep?.delimiter ? [sep.delimiter] : delimiters) {
    let read = sampleRows(units, bom, from, delimiter, emailColumn, wholeFile, cell);
    // A sample cut inside the first row (a huge first row) still says something about that row.
    if (read.rows.length === 0 && !wholeFile)
      read = sampleRows(units, bom, from, delimiter, emailColumn, true, cell);
    const c = candidate(delimiter, read.rows, read.occurs);
    if (!best || better(c, best)) best = c;
  }
  const chosen = best!;
  const bytes = (span: RowSpan): RowSpan => ({ start: span.start * width, end: span.end * width });
  const base = { delimiter: chosen.delimiter, encoding, hasHeader: false, dataStart: from * width };
  const header = findHeader(chosen.rows, wholeFile);
  if (header === 'none') return base;
  if ('pending' in header) return { ...base, pendingHeader: bytes(header.pending) };
  const span = bytes(header);
  return { ...base, hasHeader: true, headerStart: span.start, dataStart: span.end };
}

/**
 * The header row: the first row before the first address whose email cell reads like an email-column
 * title (rows before it are a preamble); else the first row, when its email cell is not an address and a
 * later row's is. Without an address in the sample the scan decides (pending), looking further; a lone
 * row is a header when its email cell holds no `@`.
 */
function findHeader(rows: SampleRow[], wholeFile: boolean): RowSpan | 'none' | { pending: RowSpan } {
  const firstAddress = rows.findIndex((r) => holdsAddress(r.email));
  const beforeData = firstAddress < 0 ? rows : rows.slice(0, firstAddress);
  const title = beforeData.find((r) => isEmailTitle(r.email));
  if (title) return title;
  const [first] = rows;
  if (!first || firstAddress === 0) return 'none';
  if (firstAddress > 0) return first;
  if (!wholeFile) return { pending: first };
  return rows.length === 1 && first.email !== undefined && !first.email.includes('@') ? first : 'none';
}

/**
 * Watches the sample grow: it is complete once no delimiter's reading is inside a quoted cell, so the
 * sample never ends inside a quoted cell, however long that cell.
 */
export class SampleProbe {
  private readonly units: UnitStream;
  private readonly tokenizers: RowTokenizer[];

  constructor(encoding: TextEncoding, first: Buffer) {
    this.units = new UnitStream(encoding);
    const bom = bomBytes(first, encoding) / unitBytes(encoding);
    this.tokenizers = delimiters.map((d) => new RowTokenizer(d.charCodeAt(0), 0, () => undefined, 0, bom));
    this.push(first);
  }

  push(piece: Buffer): void {
    const units = this.units.push(piece);
    for (const t of this.tokenizers) t.push(units);
  }

  get insideQuotes(): boolean {
    return this.tokenizers.some((t) => t.inQuotes);
  }
}
