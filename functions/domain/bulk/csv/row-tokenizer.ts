// Quote-aware CSV row tokenizer over raw bytes, fed in pieces. The scanner (row boundaries for chunking)
// and the validator (email cells of one chunk) both use it, so they always agree where a row ends.
//
// Rules (RFC 4180, lenient like papaparse): a quote opens a quoted field only at the start of a field;
// inside quotes `""` is a literal quote and delimiters and line breaks are data; a quote anywhere else
// is a literal byte. A row ends at LF, CRLF or a lone CR outside quotes.
//
// Input is one byte per character: UTF-8 and the single- and multi-byte legacy encodings as they are
// (every byte the rules look at is ASCII, which those encodings keep as is), UTF-16 as the narrowed view
// of encoding.ts (one byte per 16-bit unit).

const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const TAB = 0x09;
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** One row, as absolute byte offsets in the file: [start, contentEnd) is the row, [contentEnd, end) its line ending. */
export interface RowBounds {
  start: number;
  contentEnd: number;
  end: number;
  /** Fields in the row (an empty row has one empty field). */
  fields: number;
  /** Absolute [emailStart, emailEnd) of the tracked column's raw bytes; -1 when the row is too short. */
  emailStart: number;
  emailEnd: number;
  /** No cell holds anything but spaces and tabs (an empty line, `,,,`, `"",""`): the row passes through. */
  blank: boolean;
}

/** Called once a row ends. `row` is reused for the next row: read it during the call, copy it to keep it. */
export type RowCallback = (row: RowBounds) => void;

const enum State {
  FieldStart,
  Unquoted,
  Quoted,
  /** A quote seen inside a quoted field: either the closing quote or the first of `""`. */
  QuoteInQuoted,
  /** A CR outside quotes: a CRLF if LF follows, a lone CR line ending otherwise. */
  AfterCr,
}

function hasBom(buffer: Buffer): boolean {
  return buffer.length >= 3 && buffer.subarray(0, 3).equals(BOM);
}

export class RowTokenizer {
  protected state = State.FieldStart;
  protected rowStart: number;
  private fieldIndex = 0;
  protected fieldStart: number;
  private emailStart = -1;
  private emailEnd = -1;
  private crAt = -1;
  /** A byte other than a delimiter, a line break, a space or a tab was seen in the current row. */
  private rowHasContent = false;
  /** Absolute offset of the next byte to be pushed. */
  protected offset: number;
  /** The one record every row is reported in: a million rows, no object each. */
  protected readonly row: RowBounds = {
    start: 0,
    contentEnd: 0,
    end: 0,
    fields: 0,
    emailStart: -1,
    emailEnd: -1,
    blank: true,
  };

  /**
   * @param delimiter the delimiter byte
   * @param column zero-based column whose raw byte range each row reports
   * @param startOffset absolute offset of the first byte pushed (a chunk's start)
   * @param skipLeadingBom true when the first bytes pushed are the start of the file: a UTF-8 BOM there
   *   belongs to the first row's bytes but not to its first field; a number: that many leading bytes are
   *   such a BOM (the UTF-16 view's)
   */
  constructor(
    protected readonly delimiter: number,
    protected readonly column: number,
    protected readonly onRow: RowCallback,
    startOffset = 0,
    protected skipLeadingBom: boolean | number = false,
  ) {
    this.offset = startOffset;
    this.rowStart = startOffset;
    this.fieldStart = startOffset;
  }

  /** Feeds the next bytes of the input. */
  push(buffer: Buffer): void {
    let i = 0;
    const length = buffer.length;
    const base = this.offset;
    if (this.skipLeadingBom !== false) {
      const bom = this.skipLeadingBom === true ? (hasBom(buffer) ? 3 : 0) : this.skipLeadingBom;
      this.skipLeadingBom = false;
      i = bom;
      this.fieldStart = base + bom;
    }
    const delimiter = this.delimiter;
    let state = this.state;
    while (i < length) {
      switch (state) {
        case State.FieldStart: {
          const b = buffer[i]!;
          if (b === delimiter || b === LF || b === CR) {
            state = this.boundary(b, base + i);
            i++;
            continue;
          }
          if (b === QUOTE && base + i === this.fieldStart) {
            state = State.Quoted;
            i++;
            continue;
          }
          i++;
          // leading blanks: still at the start of the field's content (a quote after them is literal)
          if (b === SPACE || b === TAB) continue;
          this.rowHasContent = true;
          i = plainEnd(buffer, i, delimiter);
          if (i === length) {
            state = State.Unquoted;
            continue;
          }
          state = this.boundary(buffer[i]!, base + i);
          i++;
          continue;
        }
        case State.Unquoted: {
          i = plainEnd(buffer, i, delimiter);
          if (i === length) continue;
          state = this.boundary(buffer[i]!, base + i);
          i++;
          continue;
        }
        case State.Quoted: {
          // Skip straight to the next quote: everything inside quotes is data. Most quoted cells are
          // short: a loop here costs less than a native indexOf call; a long one goes native after 64.
          let next = i;
          const near = Math.min(length, i + 64);
          while (next < near && buffer[next] !== QUOTE) next++;
          if (next === near && near < length) {
            next = buffer.indexOf(QUOTE, near);
            if (next === -1) next = length;
          }
          if (!this.rowHasContent) this.rowHasContent = hasContent(buffer, i, next);
          if (next === length) {
            i = length;
            continue;
          }
          i = next + 1;
          state = State.QuoteInQuoted;
          continue;
        }
        case State.QuoteInQuoted: {
          const b = buffer[i]!;
          if (b === QUOTE) {
            this.rowHasContent = true; // an escaped quote is a character
            state = State.Quoted;
            i++;
            continue;
          }
          if (b === delimiter || b === LF || b === CR) {
            state = this.boundary(b, base + i);
            i++;
            continue;
          }
          this.rowHasContent = true;
          state = State.Unquoted;
          i++;
          continue;
        }
        case State.AfterCr: {
          const b = buffer[i]!;
          if (b === LF) {
            this.endRow(this.crAt, base + i + 1);
            i++;
          } else {
            this.endRow(this.crAt, base + i);
          }
          state = State.FieldStart;
          continue;
        }
      }
    }
    this.state = state;
    this.offset = base + length;
  }

  /** A delimiter, LF or CR outside quotes at offset `at`: ends the field (and the row); the next state. */
  private boundary(b: number, at: number): State {
    this.endField(at);
    if (b === LF) {
      this.endRow(at, at + 1);
      return State.FieldStart;
    }
    if (b === CR) {
      this.crAt = at;
      return State.AfterCr;
    }
    this.fieldStart = at + 1;
    return State.FieldStart;
  }

  /**
   * Inside a quoted field: the input so far ends in the middle of a cell. A quote last seen inside one
   * counts too: only the next byte tells a closing quote from the first of `""`.
   */
  get inQuotes(): boolean {
    return this.state === State.Quoted || this.state === State.QuoteInQuoted;
  }

  /** Ends the input: a pending CR, or a last row without a line ending, becomes a row. */
  finish(): void {
    if (this.state === State.AfterCr) {
      this.endRow(this.crAt, this.offset);
    } else if (this.offset > this.rowStart) {
      this.endField(this.offset);
      this.endRow(this.offset, this.offset);
    }
    this.state = State.FieldStart;
  }

  private endField(at: number): void {
    if (this.fieldIndex === this.column) {
      this.emailStart = this.fieldStart;
      this.emailEnd = at;
    }
    this.fieldIndex++;
  }

  private endRow(contentEnd: number, end: number): void {
    const row = this.row;
    row.start = this.rowStart;
    row.contentEnd = contentEnd;
    row.end = end;
    row.fields = this.fieldIndex;
    row.emailStart = this.emailStart;
    row.emailEnd = this.emailEnd;
    row.blank = !this.rowHasContent;
    this.onRow(row);
    this.rowHasContent = false;
    this.rowStart = end;
    this.fieldStart = end;
    this.fieldIndex = 0;
    this.emailStart = -1;
    this.emailEnd = -1;
  }
}

/** The first delimiter, LF or CR in buffer from `from` (its length if none): the hot loop, plain field content. */
function plainEnd(buffer: Buffer, from: number, delimiter: number): number {
  const length = buffer.length;
  let i = from;
  while (i < length) {
    const b = buffer[i]!;
    if (b === delimiter || (b <= CR && (b === LF || b === CR))) return i;
    i++;
  }
  return length;
}

/** Any byte in buffer[from, to) that is not blank (space, tab, CR, LF). */
function hasContent(buffer: Buffer, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const b = buffer[i]!;
    if (b !== SPACE && b !== TAB && b !== CR && b !== LF) return true;
  }
  return false;
}

/** The text of a decoded field: outer quotes removed, `""` unescaped, surrounding whitespace trimmed. */
export function cellText(decoded: string): string {
  let text = decoded;
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const trimmed = text.trim();
  if (trimmed.length >= 2 && trimmed.startsWith('"') && trimmed.endsWith('"')) {
    return trimmed.slice(1, -1).replace(/""/g, '"').trim();
  }
  if (trimmed.startsWith('"')) return trimmed.slice(1).replace(/""/g, '"').trim();
  return trimmed;
}

/** A scan's row: RowBounds without `fields`, which ScanTokenizer does not count. */
export type ScanRow = Omit<RowBounds, 'fields'>;

/**
 * The tokenizer the upload scan reads rows with: the same rules and rows (but no field count), faster.
 * A row that starts and ends inside the piece is read here in one loop, with no state kept between
 * bytes: field by field up to the end of the tracked column (quoted cells jump to their closing quote),
 * then, once the row is known to hold something, looking at quotes and line breaks only: a quote there
 * opens a quoted cell only right after a delimiter, and a quoted cell ends at a quote not followed by
 * another. The row a piece ends in, and the file's first row (a BOM), go through RowTokenizer's
 * byte-at-a-time reading. About 10% less CPU than RowTokenizer on bench:bulk's file (bench/scan.ts).
 */
export class ScanTokenizer extends RowTokenizer {
  /** The first LF and CR at or after the last search for each in the current piece (its length: none). */
  private lfSeen = -1;
  private crSeen = -1;

  constructor(delimiter: number, column: number, onRow: (row: ScanRow) => void, skipLeadingBom: number) {
    super(delimiter, column, onRow, 0, skipLeadingBom);
  }

  override push(buffer: Buffer): void {
    this.lfSeen = -1;
    this.crSeen = -1;
    const length = buffer.length;
    let p = 0;
    // the byte-at-a-time reading finishes the row the last piece ended in (and the BOM's row)
    while (p < length && !this.atRowStart()) {
      const next = this.state === State.AfterCr ? p + 1 : Math.min(length, this.nextBreak(buffer, p) + 1);
      super.push(buffer.subarray(p, next));
      p = next;
    }
    if (p === length) return;
    const base = this.offset - p;
    p = this.wholeRows(buffer, p, base);
    this.offset = base + p;
    this.rowStart = this.offset;
    this.fieldStart = this.offset;
    if (p < length) super.push(buffer.subarray(p));
  }

  /** Nothing of the current row read yet, and no BOM left to skip. */
  private atRowStart(): boolean {
    return this.state === State.FieldStart && this.rowStart === this.offset && this.skipLeadingBom === false;
  }

  /** The next LF or CR at or after `from` (the buffer's length: none). */
  private nextBreak(buffer: Buffer, from: number): number {
    if (this.lfSeen < from) {
      const at = buffer.indexOf(LF, from);
      this.lfSeen = at < 0 ? buffer.length : at;
    }
    if (this.crSeen < from) {
      const at = buffer.indexOf(CR, from);
      this.crSeen = at < 0 ? buffer.length : at;
    }
    return Math.min(this.lfSeen, this.crSeen);
  }

  /** Reads the rows that end inside `buffer` from `i` (a row start); where the first row that does not begins. */
  private wholeRows(buffer: Buffer, i: number, base: number): number {
    const length = buffer.length;
    const delimiter = this.delimiter;
    const column = this.column;
    const row = this.row;
    rows: for (;;) {
      const start = i;
      let field = 0;
      let fieldStart = i;
      let content = false;
      let emailStart = -1;
      let emailEnd = -1;
      let j = i;
      // Byte by byte, field by field, up to the end of the tracked column and the first content.
      for (;;) {
        if (j >= length) return start;
        let b = buffer[j]!;
        if (b === QUOTE && j === fieldStart) {
          // a quoted cell: to its closing quote
          let k = j + 1;
          for (;;) {
            const q = quoteFrom(buffer, k);
            if (q + 1 >= length) return start;
            if (!content) content = hasContent(buffer, k, q);
            if (buffer[q + 1] !== QUOTE) {
              j = q + 1;
              break;
            }
            content = true; // an escaped quote is a character
            k = q + 2;
          }
          b = buffer[j]!;
          if (b !== delimiter && b !== LF && b !== CR) {
            // text after the closing quote: plain to the field's end
            content = true;
            j = plainEnd(buffer, j + 1, delimiter);
            if (j === length) return start;
            b = buffer[j]!;
          }
        } else if (b !== delimiter && b !== LF && b !== CR) {
          j++;
          // leading blanks: still at the field's start, but a quote after them is literal
          if (b === SPACE || b === TAB) continue;
          content = true;
          j = plainEnd(buffer, j, delimiter);
          if (j === length) return start;
          b = buffer[j]!;
        }
        // b, at j, ends the field
        if (field === column) {
          emailStart = fieldStart;
          emailEnd = j;
        }
        field++;
        if (b === delimiter) {
          fieldStart = ++j;
          if (field > column && content) break;
          continue;
        }
        const end = this.lineEnd(buffer, b, j);
        if (end < 0) return start;
        this.emit(row, base, start, j, end, emailStart, emailEnd, content);
        i = end;
        continue rows;
      }
      // The row holds something and its tracked cell is read: only its end is left to find.
      let fieldAt = j;
      for (;;) {
        let e = j;
        for (; e < length; e++) {
          const b = buffer[e]!;
          if (b <= QUOTE && (b === QUOTE || b === LF || b === CR)) break;
        }
        if (e === length) return start;
        const b = buffer[e]!;
        if (b !== QUOTE) {
          const end = this.lineEnd(buffer, b, e);
          if (end < 0) return start;
          this.emit(row, base, start, e, end, emailStart, emailEnd, true);
          i = end;
          continue rows;
        }
        if (e !== fieldAt && buffer[e - 1] !== delimiter) {
          j = e + 1; // a literal quote inside a plain field
          continue;
        }
        // a quoted cell: past its closing quote
        let k = e + 1;
        for (;;) {
          const close = quoteFrom(buffer, k);
          if (close + 1 >= length) return start;
          if (buffer[close + 1] !== QUOTE) {
            j = close + 1;
            break;
          }
          k = close + 2;
        }
        fieldAt = -1;
      }
    }
  }

  /** The end of the row whose content ends at `at` with byte `b` (LF or CR); -1 when the next piece decides. */
  private lineEnd(buffer: Buffer, b: number, at: number): number {
    if (b === LF) return at + 1;
    if (at + 1 >= buffer.length) return -1;
    return buffer[at + 1] === LF ? at + 2 : at + 1;
  }

  private emit(
    row: RowBounds,
    base: number,
    start: number,
    contentEnd: number,
    end: number,
    emailStart: number,
    emailEnd: number,
    content: boolean,
  ): void {
    row.start = base + start;
    row.contentEnd = base + contentEnd;
    row.end = base + end;
    row.emailStart = emailStart < 0 ? -1 : base + emailStart;
    row.emailEnd = emailEnd < 0 ? -1 : base + emailEnd;
    row.blank = !content;
    this.onRow(row);
  }
}

/** The first quote in buffer from `from` (its length if none): short cells by a loop, long ones natively. */
function quoteFrom(buffer: Buffer, from: number): number {
  const length = buffer.length;
  const near = Math.min(length, from + 64);
  let at = from;
  while (at < near && buffer[at] !== QUOTE) at++;
  if (at < near || near === length) return at;
  at = buffer.indexOf(QUOTE, near);
  return at < 0 ? length : at;
}
