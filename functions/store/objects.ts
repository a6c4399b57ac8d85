// S3 object reads and writes the bulk use cases share: whether an object exists, a whole-object read
// that says which version it read, and a streaming write that becomes a multipart upload once it is
// large enough.
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
import { bucketName, s3 } from '../clients/s3';

/** S3's smallest multipart part (every part but the last). */
export const minMultipartPartBytes = 5 * 1024 * 1024;

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
