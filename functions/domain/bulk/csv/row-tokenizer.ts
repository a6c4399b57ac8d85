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
        case State.Quoted: {
          // Skip straight to the next quote: everything inside quotes is data.
          const next = buffer.indexOf(QUOTE, i);
          const stop = next === -1 ? length : next;
          if (!this.rowHasContent) this.rowHasContent = hasContent(buffer, i, stop);
          if (next === -1) {
            i = length;
            continue;
          }
          i = next + 1;
          state = State.QuoteInQuoted;
          continue;
        }
        case State.Unquoted: {
          // Hot loop: most bytes are plain field content.
          while (i < length) {
            const b = buffer[i]!;
            if (b === delimiter || b === LF || b === CR) break;
            i++;
          }
          if (i === length) continue;
          state = State.FieldStart;
          continue; // re-dispatch the special byte in FieldStart's handling below
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
            state = State.FieldStart;
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
        case State.FieldStart: {
          const b = buffer[i]!;
          const at = base + i;
          if (b === delimiter) {
            this.endField(at);
            this.fieldStart = at + 1;
          } else if (b === LF) {
            this.endField(at);
            this.endRow(at, at + 1);
          } else if (b === CR) {
            this.endField(at);
            this.crAt = at;
            state = State.AfterCr;
          } else if (b === QUOTE && at === this.fieldStart) {
            state = State.Quoted;
          } else if (b === SPACE || b === TAB) {
            // leading blanks: still at the start of the field's content (a quote after them is literal)
          } else {
            this.rowHasContent = true;
            state = State.Unquoted;
          }
          i++;
          continue;
        }
      }
    }
    this.state = state;
    this.offset = base + length;
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
    this.onRow({
      start: this.rowStart,
      contentEnd,
      end,
      fields: this.fieldIndex,
      emailStart: this.emailStart,
      emailEnd: this.emailEnd,
      blank: !this.rowHasContent,
    });
    this.rowHasContent = false;
    this.rowStart = end;
    this.fieldStart = end;
    this.fieldIndex = 0;
    this.emailStart = -1;
    this.emailEnd = -1;
  }
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
