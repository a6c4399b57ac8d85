// One streaming pass over an uploaded CSV: detect the dialect from the first bytes, find row boundaries
// quote-aware, and cut the file into byte ranges of about `chunkSizeBytes` that each end on a row
// boundary. Memory stays at one stream piece plus the detection sample, whatever the file size.
import { detectDialect, type Dialect } from './dialect';
import { RowTokenizer, type RowBounds } from './row-tokenizer';

/** A chunk of the file: whole rows in [start, end). */
export interface ChunkRange {
  index: number;
  start: number;
  end: number;
  /** Rows that get a status: non-empty rows, the header excluded. */
  dataRows: number;
  /** True for the chunk that starts with the header row. */
  headerRow: boolean;
}

export interface ScanResult {
  dialect: Dialect;
  dataRows: number;
  chunks: number;
  bytes: number;
}

export interface ScanOptions {
  emailColumn: number;
  chunkSizeBytes: number;
  /** Called for each chunk as soon as it is cut, in order. */
  onChunks: (chunks: ChunkRange[], dialect: Dialect) => void;
}

/** Bytes read before the dialect is decided. */
const sampleBytes = 64 * 1024;

export async function scanCsv(source: AsyncIterable<Uint8Array>, options: ScanOptions): Promise<ScanResult> {
  const sample: Buffer[] = [];
  let sampled = 0;
  let scanner: ChunkCutter | undefined;

  for await (const piece of source) {
    const buffer = Buffer.isBuffer(piece)
      ? piece
      : Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
    if (!scanner) {
      sample.push(buffer);
      sampled += buffer.length;
      if (sampled < sampleBytes) continue;
      scanner = new ChunkCutter(Buffer.concat(sample), false, options);
    } else {
      scanner.push(buffer);
    }
  }
  if (!scanner) scanner = new ChunkCutter(Buffer.concat(sample), true, options);
  return scanner.finish();
}

/** Feeds the tokenizer and turns its rows into chunks. */
class ChunkCutter {
  private readonly dialect: Dialect;
  private readonly tokenizer: RowTokenizer;
  private chunkStart = 0;
  private chunkRows = 0;
  private chunkHasHeader = false;
  /** Non-empty rows so far. */
  private rowsSeen = 0;
  private dataRows = 0;
  private lastEnd = 0;
  private pending: ChunkRange[] = [];
  private index = 0;

  constructor(
    first: Buffer,
    wholeFile: boolean,
    private readonly options: ScanOptions,
  ) {
    this.dialect = detectDialect(first, options.emailColumn, wholeFile);
    this.tokenizer = new RowTokenizer(
      this.dialect.delimiter.charCodeAt(0),
      0,
      (row) => this.row(row),
      0,
      true,
    );
    this.push(first);
  }

  push(buffer: Buffer): void {
    this.tokenizer.push(buffer);
    this.flush();
  }

  finish(): ScanResult {
    this.tokenizer.finish();
    if (this.lastEnd > this.chunkStart) this.cut(this.lastEnd);
    this.flush();
    return { dialect: this.dialect, dataRows: this.dataRows, chunks: this.index, bytes: this.lastEnd };
  }

  private row(row: RowBounds): void {
    if (row.contentEnd > row.start) {
      // The header is the first non-empty row, as in detection.
      const isHeader = this.rowsSeen === 0 && this.dialect.hasHeader;
      this.rowsSeen++;
      if (isHeader) {
        this.chunkHasHeader = true;
      } else {
        this.chunkRows++;
        this.dataRows++;
      }
    }
    this.lastEnd = row.end;
    if (row.end - this.chunkStart >= this.options.chunkSizeBytes) this.cut(row.end);
  }

  private cut(end: number): void {
    this.pending.push({
      index: this.index++,
      start: this.chunkStart,
      end,
      dataRows: this.chunkRows,
      headerRow: this.chunkHasHeader,
    });
    this.chunkStart = end;
    this.chunkRows = 0;
    this.chunkHasHeader = false;
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    const chunks = this.pending;
    this.pending = [];
    this.options.onChunks(chunks, this.dialect);
  }
}
