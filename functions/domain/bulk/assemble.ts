// Joins a job's chunk parts, in order, into its results object with one multipart upload. Parts are
// concatenated into multipart parts of at least 5 MB (S3's minimum for all but the last), a few at a
// time, so memory holds a handful of parts and never the whole file.
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { bucketName, s3 } from '../../clients/s3';
import type { JobItem } from './job-store';
import { minMultipartPartBytes } from './limits';
import { partIndexKey, resultIndexKey, resultObjectKey } from './object-keys';

export interface PartSource {
  key: string;
  bytes: number;
}

/** Groups consecutive parts so that every group but the last has at least `minBytes`. */
function planGroups(parts: PartSource[], minBytes = minMultipartPartBytes): PartSource[][] {
  const groups: PartSource[][] = [];
  let group: PartSource[] = [];
  let bytes = 0;
  for (const part of parts) {
    group.push(part);
    bytes += part.bytes;
    if (bytes >= minBytes) {
      groups.push(group);
      group = [];
      bytes = 0;
    }
  }
  // The tail may be short: S3 allows that for the last part.
  if (group.length > 0) groups.push(group);
  return groups;
}

/** The job's parts in chunk order, from the keys the counted attempts recorded. */
function partSources(job: JobItem): PartSource[] {
  const count = job.chunkCount ?? 0;
  const parts: PartSource[] = [];
  for (let index = 0; index < count; index++) {
    const key = job.partKeys[String(index)];
    const bytes = job.partBytes[String(index)];
    if (key === undefined || bytes === undefined)
      throw new Error(`chunk ${index} of job ${job.jobId} has no part`);
    parts.push({ key, bytes });
  }
  return parts;
}

/** Multipart parts uploaded at once. */
const groupsInFlight = 4;

async function readObject(key: string): Promise<Buffer> {
  const out = await s3().send(new GetObjectCommand({ Bucket: bucketName(), Key: key }));
  return Buffer.from(await out.Body!.transformToByteArray());
}

/**
 * Writes the results object of a job whose chunks are all done, and its row index beside it (the
 * parts' row indexes in the same order); returns the results key.
 */
export async function assembleResults(job: JobItem): Promise<string> {
  const parts = partSources(job);
  const key = resultObjectKey(job.companyId, job.jobId);
  await joinObjects(planGroups(parts), key);
  // Index parts are about a tenth of their parts' size; joined without knowing their sizes up front.
  const indexParts = parts.map((part) => ({ key: partIndexKey(part.key), bytes: 0 }));
  await joinObjects(
    planGroups(indexParts, Number.POSITIVE_INFINITY),
    resultIndexKey(job.companyId, job.jobId),
  );
  return key;
}

/** One multipart upload of `groups` (each group concatenated into one part, in order) to `key`. */
async function joinObjects(groups: PartSource[][], key: string): Promise<void> {
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
