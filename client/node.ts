// The client for Node: validateFile from a path or a stream, uploads streamed from disk with byte
// progress, results streamed to a file. The browser-safe core is client/index.ts.
import { createReadStream, createWriteStream } from 'node:fs';
import { stat, rename, rm } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { storageError } from './http';
import {
  MailvetClient,
  readWithProgress,
  type FileJobEnd,
  type MailvetClientOptions,
  type ProgressListener,
  type ValidateFileOptions,
} from './index';
import type { UploadAnswer } from './upload';

export * from './index';

/** A file on disk (its path), a stream of its bytes, or the bytes themselves. */
export type FileSource = string | Readable | Uint8Array;

export interface NodeValidateFileOptions extends ValidateFileOptions {
  /** Write the results file here (streamed); without it the results come back in memory. */
  out?: string;
}

export interface NodeFileValidation extends FileJobEnd {
  /** The results file, when the job completed and no `out` was given. */
  results?: Buffer;
  /** Where the results were written, when the job completed and `out` was given. */
  outPath?: string;
}

export class MailvetNodeClient extends MailvetClient {
  /** Validates a CSV file: create, upload with byte progress, follow, download. */
  async validateFileFrom(
    source: FileSource,
    options: NodeValidateFileOptions,
    onProgress: ProgressListener = () => undefined,
  ): Promise<NodeFileValidation> {
    const { out, ...jobOptions } = options;
    const file = await openSource(source);
    const end = await this.runFileJob(
      jobOptions,
      async (url) => {
        const answer = await putStream(url, file, (sentBytes, totalBytes) =>
          onProgress({ phase: 'upload', sentBytes, totalBytes }),
        );
        if (answer.status !== 200) throw storageError(answer.status, answer.text);
      },
      onProgress,
    );
    if (!end.download) return end;
    const response = await this.fetchResults(end.download.downloadUrl);
    const report = (receivedBytes: number, totalBytes: number | null) =>
      onProgress({ phase: 'download', receivedBytes, totalBytes });
    if (out === undefined) return { ...end, results: Buffer.from(await readWithProgress(response, report)) };
    await writeResponse(response, out, report);
    return { ...end, outPath: out };
  }

  /**
   * Streams a completed job's results file to `out`, or else to the name the service gives it (its
   * Content-Disposition, without any directory part), or `<jobId>.csv`, in the current directory.
   */
  async downloadResults(
    jobId: string,
    out?: string,
    onBytes: (receivedBytes: number, totalBytes: number | null) => void = () => undefined,
  ): Promise<{ path: string; bytes: number }> {
    const descriptor = await this.getDownload(jobId);
    const response = await this.fetchResults(descriptor.downloadUrl);
    const target = out ?? dispositionName(response.headers.get('content-disposition')) ?? `${jobId}.csv`;
    let bytes = 0;
    await writeResponse(response, target, (received, total) => {
      bytes = received;
      onBytes(received, total);
    });
    return { path: target, bytes };
  }
}

/** The file name of a Content-Disposition header, without any directory part. */
function dispositionName(header: string | null): string | undefined {
  const match = header ? /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(header) : null;
  if (!match?.[1]) return undefined;
  let name: string;
  try {
    name = path.basename(decodeURIComponent(match[1]));
  } catch {
    name = path.basename(match[1]);
  }
  return name && name !== '.' && name !== '..' ? name : undefined;
}

export function createNodeClient(options: MailvetClientOptions): MailvetNodeClient {
  return new MailvetNodeClient(options);
}

/**
 * `validateFile(path | stream, options, onProgress)` for Node, with a client built from
 * `options.client` (or MAILVET_URL / MAILVET_API_KEY).
 */
export function validateFile(
  source: FileSource,
  options: NodeValidateFileOptions & { client?: MailvetNodeClient },
  onProgress?: ProgressListener,
): Promise<NodeFileValidation> {
  const { client, ...rest } = options;
  const chosen =
    client ??
    createNodeClient({
      baseUrl: process.env.MAILVET_URL ?? 'http://localhost:3000',
      apiKey: process.env.MAILVET_API_KEY,
    });
  return chosen.validateFileFrom(source, rest, onProgress);
}

interface OpenedSource {
  size: number;
  open(): Readable;
}

/** A path is streamed from disk; a stream is read into memory first (S3 needs the length up front). */
async function openSource(source: FileSource): Promise<OpenedSource> {
  if (typeof source === 'string') {
    const info = await stat(source);
    if (!info.isFile()) throw new Error(`${source} is not a file`);
    return { size: info.size, open: () => createReadStream(source) };
  }
  const bytes = source instanceof Uint8Array ? Buffer.from(source) : await collect(source);
  return { size: bytes.byteLength, open: () => Readable.from([bytes]) };
}

async function collect(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of stream) parts.push(Buffer.isBuffer(part) ? part : Buffer.from(part as string));
  return Buffer.concat(parts);
}

/** PUT with Content-Length, counting bytes as they leave for the socket. */
function putStream(
  url: string,
  file: OpenedSource,
  onProgress: (sentBytes: number, totalBytes: number) => void,
): Promise<UploadAnswer> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const request = (target.protocol === 'https:' ? https : http).request(target, {
      method: 'PUT',
      headers: { 'content-type': 'text/csv', 'content-length': String(file.size) },
    });
    request.on('response', (response) => {
      const parts: Buffer[] = [];
      response.on('data', (part: Buffer) => parts.push(part));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, text: Buffer.concat(parts).toString('utf8') }),
      );
      response.on('error', reject);
    });
    request.on('error', reject);
    let sent = 0;
    onProgress(0, file.size);
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        sent += chunk.length;
        onProgress(sent, file.size);
        done(null, chunk);
      },
    });
    pipeline(file.open(), counter, request).catch(reject);
  });
}

/** Streams a response body to a file (through a temporary name, so a failure leaves no half file). */
async function writeResponse(
  response: Response,
  out: string,
  onBytes: (receivedBytes: number, totalBytes: number | null) => void,
): Promise<void> {
  const length = response.headers.get('content-length');
  const total = length === null ? null : Number(length);
  const partial = `${out}.part`;
  let received = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      received += chunk.length;
      onBytes(received, total);
      done(null, chunk);
    },
  });
  try {
    if (!response.body) throw new Error('the results download has no body');
    await pipeline(Readable.fromWeb(response.body as never), counter, createWriteStream(partial));
    await rename(partial, out);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
}
