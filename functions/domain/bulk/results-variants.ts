// Filtered and reason-column copies of a job's results file. A copy is made on the first download
// that asks for it, in one streaming pass over the results file and its row index (no CSV parsing),
// and kept beside the results (same prefix, same lifecycle), so each filter set is made once. The row
// walk (walkVariant) is pure; the object reads and writes are store/bucket.ts's.
import { ObjectWriter, readObject } from '../../store/bucket';
import { parseIndexLine, variantRow, type ResultsVariant } from './csv/row-index';

/** Pulls exact byte counts from a stream of buffers. */
class ByteReader {
  private buffered: Buffer[] = [];
  private size = 0;
  /** Bytes handed out so far. */
  taken = 0;
  constructor(private readonly source: AsyncIterator<Buffer>) {}

  async take(n: number): Promise<Buffer> {
    while (this.size < n) {
      const next = await this.source.next();
      if (next.done) throw new Error(`results file is shorter than its row index`);
      this.buffered.push(next.value);
      this.size += next.value.length;
    }
    const all = this.buffered.length === 1 ? this.buffered[0]! : Buffer.concat(this.buffered);
    const out = all.subarray(0, n);
    const rest = all.subarray(n);
    this.buffered = rest.length > 0 ? [rest] : [];
    this.size = rest.length;
    this.taken += n;
    return out;
  }
}

async function* lines(body: AsyncIterable<Buffer | Uint8Array>): AsyncGenerator<string> {
  let rest = '';
  for await (const piece of body) {
    const text = rest + Buffer.from(piece).toString('latin1');
    const parts = text.split('\n');
    rest = parts.pop()!;
    yield* parts;
  }
  if (rest !== '') yield rest;
}

/**
 * The one row walk of a results variant: reads the results file and its row index side by side and
 * hands `emit` the bytes of each row the variant keeps (with the reason appended when it asks).
 * @returns the bytes of the results file the index covered
 */
export async function walkVariant(
  results: AsyncIterable<Buffer>,
  index: AsyncIterable<Buffer | Uint8Array>,
  variant: ResultsVariant,
  emit: (bytes: Buffer) => Promise<void> | void,
): Promise<number> {
  const reader = new ByteReader(results[Symbol.asyncIterator]());
  for await (const line of lines(index)) {
    const row = parseIndexLine(line);
    const bytes = await reader.take(row.contentBytes + row.eolBytes);
    const kept = variantRow(row, bytes, variant);
    if (kept) await emit(kept);
  }
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
