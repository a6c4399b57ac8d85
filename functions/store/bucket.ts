// Storage of the bucket's objects: whether one exists (by listing, see objectExists), whole reads (as bytes, or as a stream that says
// which version it read), a streaming write that becomes a multipart upload once it is large enough,
// joining objects into one with a multipart upload, deleting everything under prefixes, and presigned
// addresses. Which objects a job has (their keys) and
// how they are grouped are the use cases' (functions/domain/bulk/).
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  UploadPartCommand,
  UploadPartCopyCommand,
  paginateListObjectsV2,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { Readable } from 'node:stream';
import { chunkBuffers } from '../buffer-pool';
import { bucketName, presigningS3, s3 } from '../clients/s3';
import { eachLimited } from '../concurrency';

/** An object's bytes, whole. */
export async function readObjectBytes(key: string): Promise<Buffer> {
  const out = await s3().send(new GetObjectCommand({ Bucket: bucketName(), Key: key }));
  return bufferOf(await out.Body!.transformToByteArray());
}

/** A Buffer over the same memory (Buffer.from(Uint8Array) would copy every byte). */
function bufferOf(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Multipart parts read and sent at once (each holds its bytes in memory). */
const groupsInFlight = 4;
/** Parts copied by S3 at once (a copy holds nothing here). */
const copiesInFlight = 16;

/**
 * One multipart upload to `key` (content-type text/csv) whose part n is the concatenation of the
 * objects of `groups[n]`, in order. Every group but the last must come to S3's part minimum (5 MB).
 * A group of one object is copied by S3 itself (UploadPartCopy: no byte passes through the caller);
 * a group of several is read and sent. A failure aborts the upload.
 */
export async function joinObjects(groups: { key: string }[][], key: string): Promise<void> {
  const bucket = bucketName();
  const created = await s3().send(
    new CreateMultipartUploadCommand({ Bucket: bucket, Key: key, ContentType: 'text/csv' }),
  );
  const uploadId = created.UploadId!;
  const part = { Bucket: bucket, Key: key, UploadId: uploadId };
  try {
    const etags: string[] = new Array(groups.length);
    const copy = async (n: number, source: string) => {
      const copied = await s3().send(
        new UploadPartCopyCommand({
          ...part,
          PartNumber: n + 1,
          CopySource: `${bucket}/${encodeURI(source)}`,
        }),
      );
      etags[n] = copied.CopyPartResult!.ETag!;
    };
    const join = async (n: number) => {
      const body = Buffer.concat(await Promise.all(groups[n]!.map((object) => readObjectBytes(object.key))));
      const out = await s3().send(new UploadPartCommand({ ...part, PartNumber: n + 1, Body: body }));
      etags[n] = out.ETag!;
    };
    const numbers = groups.map((_, n) => n);
    await Promise.all([
      eachLimited(
        numbers.filter((n) => groups[n]!.length === 1),
        copiesInFlight,
        (n) => copy(n, groups[n]![0]!.key),
      ),
      eachLimited(
        numbers.filter((n) => groups[n]!.length > 1),
        groupsInFlight,
        join,
      ),
    ]);
    await s3().send(
      new CompleteMultipartUploadCommand({
        Bucket: bucket,
        Key: key,
        UploadId: uploadId,
        MultipartUpload: { Parts: etags.map((ETag, n) => ({ ETag, PartNumber: n + 1 })) },
      }),
    );
  } catch (error) {
    await s3()
      .send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId }))
      .catch(() => undefined);
    throw error;
  }
}

/** Deletes at once. */
const deletesInFlight = 8;

async function keysUnder(prefix: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const page of paginateListObjectsV2({ client: s3() }, { Bucket: bucketName(), Prefix: prefix }))
    for (const object of page.Contents ?? []) if (object.Key) keys.push(object.Key);
  return keys;
}

/** Deletes every object under the prefixes; returns how many there were. Safe to repeat. */
export async function deleteObjectsUnder(prefixes: string[]): Promise<number> {
  const keys = (await Promise.all(prefixes.map(keysUnder))).flat();
  await eachLimited(keys, deletesInFlight, async (key) => {
    await s3().send(new DeleteObjectCommand({ Bucket: bucketName(), Key: key }));
  });
  return keys.length;
}

/**
 * A presigned PUT whose signature covers the content-type, so S3 refuses a PUT without it or with
 * another type like an expired URL.
 */
export function presignPut(key: string, contentType: string, expiresInSeconds: number): Promise<string> {
  return getSignedUrl(
    presigningS3(),
    new PutObjectCommand({ Bucket: bucketName(), Key: key, ContentType: contentType }),
    {
      expiresIn: expiresInSeconds,
      signableHeaders: new Set(['content-type']),
    },
  );
}

/** A presigned GET that answers with these Content-Disposition and Content-Type headers. */
export function presignGet(
  key: string,
  headers: { contentDisposition: string; contentType: string },
  expiresInSeconds: number,
): Promise<string> {
  return getSignedUrl(
    presigningS3(),
    new GetObjectCommand({
      Bucket: bucketName(),
      Key: key,
      ResponseContentDisposition: headers.contentDisposition,
      ResponseContentType: headers.contentType,
    }),
    { expiresIn: expiresInSeconds },
  );
}

/** S3's smallest multipart part (every part but the last). */
export const minMultipartPartBytes = 5 * 1024 * 1024;

/**
 * true when the object exists. A listing of the key as a prefix, not a HEAD: for a missing key S3
 * answers HEAD with 404 only to a caller allowed s3:ListBucket on the whole bucket (403 otherwise),
 * while a listing needs s3:ListBucket only for that prefix (the role's grant is limited by s3:prefix).
 * The key itself, when present, sorts first among the keys it prefixes.
 */
export async function objectExists(key: string): Promise<boolean> {
  const out = await s3().send(new ListObjectsV2Command({ Bucket: bucketName(), Prefix: key, MaxKeys: 1 }));
  return out.Contents?.[0]?.Key === key;
}

/** Copies an object inside the bucket, server-side (no bytes pass through the caller). */
export async function copyObject(fromKey: string, toKey: string): Promise<void> {
  const bucket = bucketName();
  await s3().send(
    new CopyObjectCommand({ Bucket: bucket, Key: toKey, CopySource: `${bucket}/${encodeURI(fromKey)}` }),
  );
}

/** An object being read: its body and the version the read got. */
export interface ObjectRead {
  body: Readable;
  etag: string;
  size: number;
  /** The S3 version id, when the bucket keeps versions. */
  versionId?: string;
}

/** Reads a whole object (the caller consumes or destroys `body`). */
export async function readObject(key: string): Promise<ObjectRead> {
  const object = await s3().send(new GetObjectCommand({ Bucket: bucketName(), Key: key }));
  return {
    body: object.Body as Readable,
    etag: object.ETag ?? '',
    size: object.ContentLength ?? 0,
    ...(object.VersionId && object.VersionId !== 'null' ? { versionId: object.VersionId } : {}),
  };
}

/** Collects output and sends it as multipart parts of at least S3's minimum size. */
export class ObjectWriter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private readonly parts: { ETag: string; PartNumber: number }[] = [];
  private constructor(
    private readonly key: string,
    private readonly contentType: string,
    private readonly uploadId: string,
  ) {}

  static async open(key: string, contentType: string): Promise<ObjectWriter> {
    const created = await s3().send(
      new CreateMultipartUploadCommand({ Bucket: bucketName(), Key: key, ContentType: contentType }),
    );
    return new ObjectWriter(key, contentType, created.UploadId!);
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
          ContentType: this.contentType,
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

/** The object a range read expected is gone or was replaced by another version. */
export class ObjectChangedError extends Error {}

const stripQuotes = (etag: string) => etag.replace(/"/g, '');

/**
 * Bytes [start, end) of the exact object version `object` names (If-Match on its ETag, and its version
 * id when the bucket keeps versions); ObjectChangedError when that version is no longer there. A
 * large range comes in a buffer of chunkBuffers (functions/buffer-pool.ts), which the caller may give
 * back once nothing reads it.
 */
export async function readPinnedRange(
  object: { key: string; etag: string; versionId?: string },
  start: number,
  end: number,
): Promise<Buffer> {
  try {
    const out = await s3().send(
      new GetObjectCommand({
        Bucket: bucketName(),
        Key: object.key,
        Range: `bytes=${start}-${end - 1}`,
        IfMatch: object.etag,
        ...(object.versionId ? { VersionId: object.versionId } : {}),
      }),
    );
    // Checked here too: not every S3 implementation honours If-Match.
    if (out.ETag && stripQuotes(out.ETag) !== stripQuotes(object.etag)) {
      (out.Body as Readable | undefined)?.destroy();
      throw new ObjectChangedError();
    }
    const body =
      out.Body instanceof Readable
        ? await readExactly(out.Body, end - start)
        : bufferOf(await out.Body!.transformToByteArray());
    if (body.length !== end - start) throw new ObjectChangedError();
    return body;
  } catch (error) {
    const name = (error as { name?: string }).name;
    if (name === 'PreconditionFailed' || name === 'InvalidRange') throw new ObjectChangedError();
    throw error;
  }
}

/**
 * A body of known length, each piece copied into one buffer as it arrives: the SDK's
 * transformToByteArray pipes the pieces into a list and then copies them into a zero-filled array,
 * twice the memory traffic for a chunk's 4 MB. ObjectChangedError when the length differs. The buffer
 * comes from chunkBuffers: the caller may give it back there once done with it.
 */
function readExactly(body: Readable, length: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const out = chunkBuffers.take(length);
    let at = 0;
    body.on('data', (piece: Buffer) => {
      if (at + piece.length > length) {
        body.destroy();
        reject(new ObjectChangedError());
        return;
      }
      at += piece.copy(out, at);
    });
    body.once('end', () => (at === length ? resolve(out) : reject(new ObjectChangedError())));
    body.once('error', reject);
  });
}

/** Writes a whole object. */
export async function putObject(key: string, body: Buffer, contentType: string): Promise<void> {
  await s3().send(
    new PutObjectCommand({ Bucket: bucketName(), Key: key, Body: body, ContentType: contentType }),
  );
}
