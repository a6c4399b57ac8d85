// The file's bytes around the row the tokenizer is on, while a scan streams: the piece being tokenized
// and the start of a row begun in earlier pieces, so a row's cell can be read whichever pieces it spans.

/** A row longer than this (a huge quoted cell) is not held: its cell cannot be read (slice: undefined). */
const maxHeldBytes = 64 * 1024;

/** Takes row `ordinal`'s cell as bytes[from, to). */
export interface CellVisitor {
  row(ordinal: number, bytes: Buffer, from: number, to: number): void;
}

export class RowBytes {
  /** Bytes of an unfinished row from earlier pieces, from heldStart (absolute file offset). */
  private held: Buffer = Buffer.alloc(0);
  private heldStart = 0;
  private current: Buffer = Buffer.alloc(0);
  private currentStart = 0;

  /** The next piece of the file, before the tokenizer sees it. */
  push(piece: Buffer): void {
    const end = this.currentStart + this.current.length;
    this.current = piece;
    this.currentStart = end;
  }

  /**
   * Hands `visitor` bytes [start, end) of the file as a buffer and a range in it (no copy when they lie in
   * one piece); false when they are no longer held.
   */
  visit(start: number, end: number, visitor: CellVisitor, ordinal: number): boolean {
    const { currentStart } = this;
    if (start >= currentStart) {
      visitor.row(ordinal, this.current, start - currentStart, end - currentStart);
      return true;
    }
    const bytes = this.slice(start, end);
    if (bytes) visitor.row(ordinal, bytes, 0, bytes.length);
    return bytes !== undefined;
  }

  /** Bytes [start, end) of the file, if they are still held. */
  slice(start: number, end: number): Buffer | undefined {
    const { currentStart } = this;
    if (start >= currentStart) return this.current.subarray(start - currentStart, end - currentStart);
    if (start < this.heldStart) return undefined;
    const before = this.held.subarray(start - this.heldStart);
    if (end <= currentStart) return before.subarray(0, end - start);
    return Buffer.concat([before, this.current.subarray(0, end - currentStart)]);
  }

  /** After the tokenizer took the piece: keep only the bytes from `rowStart` (the unfinished row) on. */
  keepFrom(rowStart: number): void {
    const { currentStart } = this;
    const end = currentStart + this.current.length;
    if (rowStart >= currentStart) {
      this.held = this.current.subarray(rowStart - currentStart);
    } else if (rowStart >= this.heldStart && end - rowStart <= maxHeldBytes) {
      this.held = Buffer.concat([this.held.subarray(rowStart - this.heldStart), this.current]);
    } else {
      this.held = Buffer.alloc(0);
      this.heldStart = end;
      return;
    }
    this.heldStart = rowStart;
  }
}
