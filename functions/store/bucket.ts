// Storage of the bucket's objects: whole reads, joining objects into one with a multipart upload,
// deleting everything under prefixes, and presigned addresses. Which objects a job has (their keys) and
// how they are grouped are the use cases' (functions/domain/bulk/).
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  PutObjectCommand,
  UploadPartCommand,
  paginateListObjectsV2,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { bucketName, presigningS3, s3 } from '../clients/s3';

/** An object's bytes, whole. */
async function readObject(key: string): Promise<Buffer> {
  const out = await s3().send(new GetObjectCommand({ Bucket: bucketName(), Key: key }));
  return Buffer.from(await out.Body!.transformToByteArray());
}

/** Multipart parts uploaded at once. */
const groupsInFlight = 4;

/**
 * One multipart upload to `key` (content-type text/csv) whose part n is the concatenation of the
 * objects of `groups[n]`, in order. Every group but the last must come to S3's part minimum (5 MB).
 * A failure aborts the upload.
 */
export async function joinObjects(groups: { key: string }[][], key: string): Promise<void> {
  const bucket = bucketName();
  const created = await s3().send(
    new CreateMultipartUploadCommand({ Bucket: bucket, Key: key, ContentType: 'text/csv' }),
  );
  const uploadId = created.UploadId!;
  try {
    const etags: string[] = new Array(groups.length);
    let next = 0;
    const worker = async () => {
      while (next < groups.length) {
        const n = next++;
        const body = Buffer.concat(await Promise.all(groups[n]!.map((part) => readObject(part.key))));
        const out = await s3().send(
          new UploadPartCommand({
            Bucket: bucket,
            Key: key,
            UploadId: uploadId,
            PartNumber: n + 1,
            Body: body,
          }),
        );
        etags[n] = out.ETag!;
      }
    };
    await Promise.all(Array.from({ length: Math.min(groupsInFlight, groups.length) }, worker));
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
  let next = 0;
  const worker = async () => {
    while (next < keys.length) {
      const key = keys[next++]!;
      await s3().send(new DeleteObjectCommand({ Bucket: bucketName(), Key: key }));
    }
  };
  await Promise.all(Array.from({ length: Math.min(deletesInFlight, keys.length) }, worker));
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
