// Removing every S3 object of a job: its upload, its parts (and their row indexes), its results file,
// the results' row index and every filtered copy. In a versioned bucket this leaves delete markers; the
// bucket's `expire-noncurrent` lifecycle rule removes the old versions' bytes within a day.
import { DeleteObjectCommand, paginateListObjectsV2 } from '@aws-sdk/client-s3';
import { bucketName, s3 } from '../../clients/s3';
import { jobObjectPrefixes } from './object-keys';

/** Deletes at once. */
const deletesInFlight = 8;

async function keysUnder(prefix: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const page of paginateListObjectsV2({ client: s3() }, { Bucket: bucketName(), Prefix: prefix }))
    for (const object of page.Contents ?? []) if (object.Key) keys.push(object.Key);
  return keys;
}

/** Deletes the job's objects; returns how many there were. Safe to repeat. */
export async function deleteJobObjects(companyId: string, jobId: string): Promise<number> {
  const keys = (await Promise.all(jobObjectPrefixes(companyId, jobId).map(keysUnder))).flat();
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
