// Removing every S3 object of a job: its upload, its parts (and their row indexes), its results file,
// the results' row index and every filtered copy. In a versioned bucket this leaves delete markers; the
// bucket's `expire-noncurrent` lifecycle rule removes the old versions' bytes within a day.
import { deleteObjectsUnder } from '../../store/bucket';
import { jobObjectPrefixes } from './object-keys';

/** Deletes the job's objects; returns how many there were. Safe to repeat. */
export function deleteJobObjects(companyId: string, jobId: string): Promise<number> {
  return deleteObjectsUnder(jobObjectPrefixes(companyId, jobId));
}
