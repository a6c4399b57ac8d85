// Filtered and reason-column copies of a job's results file. A copy is made on the first download
// that asks for it, in one streaming pass over the results file and its row index (no CSV parsing),
// and kept beside the results (same prefix, same lifecycle), so each filter set is made once. The row
// walk (walkVariant) is pure; the object reads and writes are store/bucket.ts's.
import { ObjectWriter, readObject } from '../../store/bucket';
import { classInVariant, indexSegments, type ResultsVariant } from './csv/row-index';

/** Pulls exact byte counts from a stream of buffers: fill() first, then take() or skip() at once. */
class ByteReader {
  private buffered: Buffer[] = [];
  /** Bytes buffered. */
  size = 0;
  /** Bytes handed out or skipped so far. */
  taken = 0;
  constructor(private readonly source: AsyncIterator<Buffer>) {}

  /** Reads until `n` bytes are buffered. */
  async fill(n: number): Promise<void> {
    while (this.size < n) {
      const next = await this.source.next();
      if (next.done) throw new Error(`results file is shorter than its row index`);
      this.buffered.push(next.value);
      this.size += next.value.length;
    }
  }

  take(n: number): Buffer {
    const all = this.buffered.length === 1 ? this.buffered[0]! : Buffer.concat(this.buffered);
    const out = all.subarray(0, n);
    const rest = all.subarray(n);
    this.buffered = rest.length > 0 ? [rest] : [];
    this.size = rest.length;
    this.taken += n;
    return out;
  }

  skip(n: number): void {
    let rest = n;
    while (rest > 0) {
      const first = this.buffered[0]!;
      if (first.length > rest) {
        this.buffered[0] = first.subarray(rest);
        break;
      }
      rest -= first.length;
      this.buffered.shift();
    }
    this.size -= n;
    this.taken += n;
  }
}

/** Bytes handed to `emit` in pieces of about `target` bytes, not one call per row. */
const emitBytes = 1 << 20;

/**
 * The one row walk of a results variant: reads the results file and its row index side by side and
 * hands `emit` the bytes of the rows the variant keeps (with the reason appended when it asks), a run
 * of kept rows at a time.
 * @returns the bytes of the results file the index covered
 */
export async function walkVariant(
  results: AsyncIterable<Buffer>,
  index: AsyncIterable<Buffer | Uint8Array>,
  variant: ResultsVariant,
  emit: (bytes: Buffer) => Promise<void> | void,
): Promise<number> {
  const reader = new ByteReader(results[Symbol.asyncIterator]());
  let out: Buffer[] = [];
  let outBytes = 0;
  /** Kept rows' bytes not taken from the reader yet (a run is taken in one piece). */
  let run = 0;
  const flush = async (force: boolean) => {
    if (run > 0) {
      if (reader.size < run) await reader.fill(run);
      const bytes = reader.take(run);
      out.push(bytes);
      outBytes += bytes.length;
      run = 0;
    }
    if (outBytes === 0 || (!force && outBytes < emitBytes)) return;
    await emit(out.length === 1 ? out[0]! : Buffer.concat(out, outBytes));
    out = [];
    outBytes = 0;
  };
  for await (const { classes, codes, contentBytes } of indexSegments(index)) {
    const plans = classes.map((rowClass) => classInVariant(rowClass, variant));
    for (let row = 0; row < codes.length; row++) {
      const code = codes[row]!;
      const plan = plans[code];
      const content = contentBytes[row]!;
      const length = content + classes[code]!.eolBytes;
      if (plan === true) {
        run += length;
        if (run >= emitBytes) await flush(false);
      } else if (plan === undefined) {
        if (run > 0) await flush(false);
        if (reader.size < length) await reader.fill(length);
        reader.skip(length);
      } else {
        if (run > 0) await flush(false);
        if (reader.size < length) await reader.fill(length);
        const bytes = reader.take(length);
        out.push(bytes.subarray(0, content), plan as Buffer, bytes.subarray(content));
        outBytes += length + (plan as Buffer).length;
        if (outBytes >= emitBytes) await flush(false);
      }
    }
  }
  await flush(true);
  return reader.taken;
}

/** Writes the copy of `resultKey` that `variant` describes to `variantKey`. */
export async function produceVariant(
  resultKey: string,
  indexKey: string,
  variantKey: string,
  variant: ResultsVariant,
): Promise<void> {
  const [results, index] = await Promise.all([readObject(resultKey), readObject(indexKey)]);
  const writer = await ObjectWriter.open(variantKey, 'text/csv');
  try {
    await walkVariant(results.body as AsyncIterable<Buffer>, index.body, variant, (bytes) =>
      writer.write(bytes),
    );
    await writer.close();
  } catch (error) {
    await writer.abort();
    throw error;
  } finally {
    results.body.destroy();
    index.body.destroy();
  }
}
