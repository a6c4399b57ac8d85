// One streaming pass over an uploaded CSV: refuse files that are not text, detect the dialect from the
// first bytes, find row boundaries quote-aware, and cut the file into byte ranges of about
// `chunkSizeBytes` that each end on a row boundary. Memory stays at one stream piece plus the detection
// sample, whatever the file size.
import {
  detectDialect,
  holdsAddress,
  SampleProbe,
  type Dialect,
  type DialectGuess,
  type RowSpan,
} from './dialect';
import { bomBytes, decodeText, detectEncoding, hasNul, unitBytes, UnitStream } from './encoding';
import { binaryDataError, NotCsvError, notTextReason } from './not-text';
import { RowBytes } from './row-bytes';
import { cellText, ScanTokenizer, type ScanRow } from './row-tokenizer';
import { DuplicateFinder, type DuplicateRows } from '../duplicates';
import { Reservoir } from '../estimate/reservoir';

/** A chunk of the file: whole rows in [start, end). */
export interface ChunkRange {
  index: number;
  start: number;
  end: number;
  /** Rows that get a status: non-blank rows from the dialect's dataStart on. */
  dataRows: number;
  /** True for the chunk that holds the header row. */
  headerRow: boolean;
}

export interface ScanResult {
  dialect: Dialect;
  dataRows: number;
  chunks: number;
  bytes: number;
  /** With `findDuplicates`: rows whose address appeared earlier in the file. */
  duplicates?: DuplicateRows;
  /** With `sample`: the email cell of each sampled data row ('' blank, undefined when missing). */
  sample?: (string | undefined)[];
}

/** A uniform sample of the data rows, taken in the same pass (estimate jobs). */
export interface SampleOptions {
  size: number;
  random: () => number;
}

/** The longest email cell a sample keeps: longer cells are no address either way (RFC 5321: 254). */
const maxSampledCellBytes = 1024;

export interface ScanOptions {
  emailColumn: number;
  chunkSizeBytes: number;
  /** Called for each chunk as soon as it is cut (and the header is decided), in order. */
  onChunks: (chunks: ChunkRange[], dialect: Dialect) => void;
  /** Also find duplicate rows (../duplicates.ts). */
  findDuplicates?: boolean;
  /** The file's size, when known: the duplicate finder sizes its set from it once. */
  fileBytes?: number;
  sample?: SampleOptions;
}

/** Bytes read before the dialect is decided (more while the sample ends inside a quoted cell). */
const sampleBytes = 64 * 1024;

/**
 * Scans the file. Throws NotCsvError (its message is the job's error) for a file that is not CSV text:
 * known binary signatures in the first bytes, or NUL bytes anywhere in a file that is not UTF-16.
 */
export async function scanCsv(source: AsyncIterable<Uint8Array>, options: ScanOptions): Promise<ScanResult> {
  const sample: Buffer[] = [];
  let sampled = 0;
  let probe: SampleProbe | undefined;
  let cutter: ChunkCutter | undefined;

  for await (const piece of source) {
    const buffer = Buffer.isBuffer(piece)
      ? piece
      : Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
    if (cutter) {
      cutter.push(buffer);
      continue;
    }
    sample.push(buffer);
    sampled += buffer.length;
    if (sampled < sampleBytes) continue;
    if (!probe) {
      const first = Buffer.concat(sample);
      sample.splice(0, sample.length, first);
      refuseNonText(first);
      probe = new SampleProbe(detectEncoding(first, false), first);
    } else probe.push(buffer);
    if (probe.insideQuotes) continue;
    cutter = new ChunkCutter(Buffer.concat(sample), false, options);
  }
  if (!cutter) {
    const whole = Buffer.concat(sample);
    refuseNonText(whole);
    cutter = new ChunkCutter(whole, true, options);
  }
  return cutter.finish();
}

function refuseNonText(sample: Buffer): void {
  const reason = notTextReason(sample);
  if (reason) throw new NotCsvError(reason);
}

/** Feeds the tokenizer and turns its rows into chunks. */
class ChunkCutter {
  private readonly dialect: Dialect;
  private readonly width: 1 | 2;
  private readonly units: UnitStream;
  private readonly tokenizer: ScanTokenizer;
  /** Units: the tokenizer's offsets (bytes, or UTF-16 units). */
  private chunkStart = 0;
  private chunkRows = 0;
  private chunkHasHeader = false;
  private dataRows = 0;
  private lastEnd = 0;
  private bytes = 0;
  private pending: ChunkRange[] = [];
  private index = 0;
  /** The header candidate while no address has been seen (units), and the bytes its check needs. */
  private candidate: RowSpan | undefined;
  private window: Buffer = Buffer.alloc(0);
  private windowStart = 0;
  private readonly checkNul: boolean;
  private readonly duplicates: DuplicateFinder | undefined;
  private readonly rowBytes = new RowBytes();
  /** Sampling: the kept rows' raw email cells, and the raw bytes of the rows not yet ended. */
  private readonly reservoir: Reservoir<Buffer | undefined> | undefined;
  private raw: Buffer = Buffer.alloc(0);
  private rawStart = 0;
  /** The header candidate's cell, offered once the candidate proves to be a data row. */
  private heldCandidate: { cell: Buffer | undefined } | undefined;

  constructor(
    first: Buffer,
    wholeFile: boolean,
    private readonly options: ScanOptions,
  ) {
    const guess: DialectGuess = detectDialect(first, options.emailColumn, wholeFile);
    const { pendingHeader, ...dialect } = guess;
    this.dialect = dialect;
    this.width = unitBytes(dialect.encoding);
    this.checkNul = this.width === 1;
    if (options.findDuplicates) {
      // rows expected: the file's size over the sample's bytes per line
      let lines = 0;
      for (let at = first.indexOf(0x0a); at >= 0; at = first.indexOf(0x0a, at + 1)) lines++;
      const expectedRows = options.fileBytes ? (options.fileBytes * lines) / Math.max(1, first.length) : 0;
      this.duplicates = new DuplicateFinder(dialect.encoding, expectedRows);
    }
    if (options.sample) this.reservoir = new Reservoir(options.sample.size, options.sample.random);
    if (pendingHeader)
      this.candidate = { start: pendingHeader.start / this.width, end: pendingHeader.end / this.width };
    this.units = new UnitStream(dialect.encoding);
    this.tokenizer = new ScanTokenizer(
      dialect.delimiter.charCodeAt(0),
      options.emailColumn,
      (row) => this.row(row),
      bomBytes(first, dialect.encoding) / this.width,
    );
    this.push(first);
  }

  push(buffer: Buffer): void {
    if (this.checkNul && hasNul(buffer)) throw new NotCsvError(binaryDataError);
    this.bytes += buffer.length;
    if (this.reservoir) this.raw = this.raw.length === 0 ? buffer : Buffer.concat([this.raw, buffer]);
    const units = this.units.push(buffer);
    if (this.duplicates) this.rowBytes.push(buffer);
    if (this.candidate) {
      // Keep the bytes of rows not yet ended: the email cell of the next row may start in them.
      this.window = this.window.length === 0 ? units : Buffer.concat([this.window, units]);
    }
    this.tokenizer.push(units);
    if (this.duplicates) this.rowBytes.keepFrom(this.lastEnd * this.width);
    if (this.candidate) {
      const keepFrom = this.lastEnd - this.windowStart;
      this.window = this.window.subarray(Math.max(0, keepFrom));
      this.windowStart += Math.max(0, keepFrom);
    } else this.window = Buffer.alloc(0);
    if (this.reservoir) {
      const keepFrom = this.lastEnd * this.width - this.rawStart;
      if (keepFrom > 0) {
        this.raw = this.raw.subarray(keepFrom);
        this.rawStart += keepFrom;
      }
    }
    this.flush();
  }

  finish(): ScanResult {
    const tail = this.units.finish();
    if (tail.length > 0) this.tokenizer.push(tail);
    this.tokenizer.finish();
    if (this.lastEnd > this.chunkStart) this.cut(this.lastEnd);
    // No row after the header candidate holds an address: it is a data row (docs/api.md).
    this.candidate = undefined;
    if (this.heldCandidate) this.offer(this.heldCandidate.cell);
    this.heldCandidate = undefined;
    this.flush();
    const result: ScanResult = {
      dialect: this.dialect,
      dataRows: this.dataRows,
      chunks: this.index,
      bytes: this.bytes,
      ...(this.duplicates ? { duplicates: this.duplicates } : {}),
    };
    if (this.reservoir) result.sample = this.reservoir.items().map((cell) => this.cellOf(cell));
    return result;
  }

  /** A data row's raw email cell (at most maxSampledCellBytes), undefined when the row has no such cell. */
  private rawCell(row: ScanRow): Buffer | undefined {
    if (row.emailStart < 0) return undefined;
    const from = row.emailStart * this.width - this.rawStart;
    const to = Math.min(row.emailEnd * this.width - this.rawStart, from + maxSampledCellBytes);
    return Buffer.from(this.raw.subarray(Math.max(0, from), Math.max(0, to)));
  }

  /** The cell as the chunk validator reads it (csv/annotate.ts readChunkRows). */
  private cellOf(cell: Buffer | undefined): string | undefined {
    return cell === undefined ? undefined : cellText(decodeText(cell, this.dialect.encoding));
  }

  private offer(cell: Buffer | undefined): void {
    const slot = this.reservoir!.offer();
    if (slot >= 0) this.reservoir!.put(slot, cell);
  }

  /** Offers a data row to the sample; the header candidate waits until it proves to be data. */
  private sampleRow(row: ScanRow): void {
    const held = this.candidate && row.start === this.candidate.start;
    if (held) this.heldCandidate = { cell: this.rawCell(row) };
    else {
      const slot = this.reservoir!.offer();
      if (slot >= 0) this.reservoir!.put(slot, this.rawCell(row));
    }
  }

  private row(row: ScanRow): void {
    const start = row.start * this.width;
    if (start === this.dialect.headerStart) this.chunkHasHeader = true;
    else if (!row.blank && start >= this.dialect.dataStart) {
      this.chunkRows++;
      this.dataRows++;
      if (this.reservoir) this.sampleRow(row);
      if (this.candidate && row.start > this.candidate.start && this.addressIn(row)) this.headerFound();
      // Rows before the header is decided hold no address: they are never compared.
      if (this.duplicates && !this.candidate && row.emailStart >= 0) {
        const { width } = this;
        this.rowBytes.visit(row.emailStart * width, row.emailEnd * width, this.duplicates, this.dataRows - 1);
      }
    }
    this.lastEnd = row.end;
    if (row.end - this.chunkStart >= this.options.chunkSizeBytes / this.width) this.cut(row.end);
  }

  /** The row's email cell holds an address (checked only while the header is undecided). */
  private addressIn(row: ScanRow): boolean {
    if (row.emailStart < this.windowStart) return false;
    const raw = this.window.subarray(row.emailStart - this.windowStart, row.emailEnd - this.windowStart);
    // The unit view is enough to see an address's shape: ASCII stays ASCII.
    return holdsAddress(
      cellText(this.width === 2 ? raw.toString('latin1') : decodeText(raw, this.dialect.encoding)),
    );
  }

  /** A row after the candidate holds an address: the candidate is the header after all. */
  private headerFound(): void {
    const candidate = this.candidate!;
    this.candidate = undefined;
    this.heldCandidate = undefined;
    this.dialect.hasHeader = true;
    this.dialect.headerStart = candidate.start * this.width;
    this.dialect.dataStart = candidate.end * this.width;
    this.dataRows--;
    const holder = this.pending.find(
      (c) => c.start <= this.dialect.headerStart! && this.dialect.headerStart! < c.end,
    );
    if (holder) {
      holder.dataRows--;
      holder.headerRow = true;
    } else {
      this.chunkRows--;
      this.chunkHasHeader = true;
    }
  }

  private cut(end: number): void {
    this.pending.push({
      index: this.index++,
      start: this.chunkStart * this.width,
      end: Math.min(end * this.width, this.bytes),
      dataRows: this.chunkRows,
      headerRow: this.chunkHasHeader,
    });
    this.chunkStart = end;
    this.chunkRows = 0;
    this.chunkHasHeader = false;
  }

  /** Hands out the cut chunks, unless the header is still undecided (then they wait). */
  private flush(): void {
    if (this.pending.length === 0 || this.candidate) return;
    const chunks = this.pending;
    this.pending = [];
    this.options.onChunks(chunks, this.dialect);
  }
}
