// Filtered and reason-column copies of a job's results file. A copy is made on the first download
// that asks for it, in one streaming pass over the results file and its row index (no CSV parsing),
// and kept beside the results (same prefix, same lifecycle), so each filter set is made once.
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import type { Readable } from 'node:stream';
import { bucketName, s3 } from '../../clients/s3';
import { parseIndexLine, variantRow, type ResultsVariant } from './csv/row-index';
import { minMultipartPartBytes } from './limits';

/** true when the object exists; false when S3 answers 404 (any other error is thrown). */
export async function objectExists(key: string): Promise<boolean> {
  try {
    await s3().send(new HeadObjectCommand({ Bucket: bucketName(), Key: key }));
    return true;
  } catch (error) {
    const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
    if (status === 404 || (error as Error).name === 'NotFound' || (error as Error).name === 'NoSuchKey')
      return false;
    throw error;
  }
}

/** Pulls exact byte counts from a stream of buffers. */
class ByteReader {
  private buffered: Buffer[] = [];
  private size = 0;
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
    return out;
  }
}

/** Collects output and sends it as multipart parts of at least S3's minimum size. */
class MultipartWriter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private readonly parts: { ETag: string; PartNumber: number }[] = [];
  private constructor(
    private readonly key: string,
    private readonly uploadId: string,
  ) {}

  static async open(key: string): Promise<MultipartWriter> {
    const created = await s3().send(
      new CreateMultipartUploadCommand({ Bucket: bucketName(), Key: key, ContentType: 'text/csv' }),
    );
    return new MultipartWriter(key, created.UploadId!);
  }

  async write(bytes: Buffer): Promise<void> {
    this.pending.push(bytes);
    this.pendingBytes += bytes.length;
    if (this.pendingBytes >= minMultipartPartBytes) await this.flush();
  }

  private async flush(): Promise<void> {
    const PartNumber = this.parts.length + 1;
    const out = await s3().send(
      new UploadPartCommand({
        Bucket: bucketName(),
        Key: this.key,
        UploadId: this.uploadId,
        PartNumber,
        Body: Buffer.concat(this.pending),
      }),
    );
    this.parts.push({ ETag: out.ETag!, PartNumber });
    this.pending = [];
    this.pendingBytes = 0;
  }

  async close(): Promise<void> {
    if (this.parts.length === 0) {
      // Smaller than one part (or empty): a plain put.
      await this.abort();
      await s3().send(
        new PutObjectCommand({
          Bucket: bucketName(),
          Key: this.key,
          Body: Buffer.concat(this.pending),
          ContentType: 'text/csv',
        }),
      );
      return;
    }
    // The last part may be short.
    if (this.pendingBytes > 0) await this.flush();
    await s3().send(
      new CompleteMultipartUploadCommand({
        Bucket: bucketName(),
        Key: this.key,
        UploadId: this.uploadId,
        MultipartUpload: { Parts: this.parts },
      }),
    );
  }

  async abort(): Promise<void> {
    await s3()
      .send(new AbortMultipartUploadCommand({ Bucket: bucketName(), Key: this.key, UploadId: this.uploadId }))
      .catch(() => undefined);
  }
}

async function* lines(body: Readable): AsyncGenerator<string> {
  let rest = '';
  for await (const piece of body) {
    const text = rest + (piece as Buffer).toString('latin1');
    const parts = text.split('\n');
    rest = parts.pop()!;
    yield* parts;
  }
  if (rest !== '') yield rest;
}

/** Writes the copy of `resultKey` that `variant` describes to `variantKey`. */
export async function produceVariant(
  resultKey: string,
  indexKey: string,
  variantKey: string,
  variant: ResultsVariant,
): Promise<void> {
  const [results, index] = await Promise.all([
    s3().send(new GetObjectCommand({ Bucket: bucketName(), Key: resultKey })),
    s3().send(new GetObjectCommand({ Bucket: bucketName(), Key: indexKey })),
  ]);
  const resultsBody = results.Body as Readable;
  const indexBody = index.Body as Readable;
  const reader = new ByteReader((resultsBody as AsyncIterable<Buffer>)[Symbol.asyncIterator]());
  const writer = await MultipartWriter.open(variantKey);
  try {
    for await (const line of lines(indexBody)) {
      const row = parseIndexLine(line);
      const bytes = await reader.take(row.contentBytes + row.eolBytes);
      const kept = variantRow(row, bytes, variant);
      if (kept) await writer.write(kept);
    }
    await writer.close();
  } catch (error) {
    await writer.abort();
    throw error;
  } finally {
    resultsBody.destroy();
    indexBody.destroy();
  }
}
