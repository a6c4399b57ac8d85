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
  private state = State.FieldStart;
  private rowStart: number;
  private fieldIndex = 0;
  private fieldStart: number;
  private emailStart = -1;
  private emailEnd = -1;
  private crAt = -1;
  /** A byte other than a delimiter, a line break, a space or a tab was seen in the current row. */
  private rowHasContent = false;
  /** Absolute offset of the next byte to be pushed. */
  private offset: number;
  /** The one record every row is reported in: a million rows, no object each. */
  private readonly row: RowBounds = {
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
    private readonly delimiter: number,
    private readonly column: number,
    private readonly onRow: RowCallback,
    startOffset = 0,
    private skipLeadingBom: boolean | number = false,
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
