// Joins a job's chunk parts, in order, into its results object with one multipart upload. A part of at
// least 5 MB (S3's minimum for all but the last; every part at the default chunk size) is copied by S3
// into its place; smaller ones are concatenated into multipart parts of at least 5 MB, a few at a time,
// so memory holds a handful of parts and never the whole file.
import { joinObjects } from '../../store/bucket';
import type { JobDuplicates } from '../../store/jobs/duplicates';
import type { JobItem } from '../../store/jobs/item';
import { resolveDuplicates } from './assemble-duplicates';
import { minMultipartPartBytes } from './limits';
import { partIndexKey, resultIndexKey, resultObjectKey } from './object-keys';
import { emptyStatistics, type Statistics } from './statuses';

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

/**
 * Writes the results object of a job whose chunks are all done, and its row index beside it (the
 * parts' row indexes in the same order); returns the results key and, for a job with duplicate rows,
 * the statuses its duplicates moved between (assemble-duplicates.ts).
 */
export async function assembleResults(
  job: JobItem & JobDuplicates,
): Promise<{ key: string; moved: Statistics }> {
  const key = resultObjectKey(job.companyId, job.jobId);
  if ((job.duplicateEmails ?? 0) > 0) {
    const { parts, moved } = await resolveDuplicates(job, partSources(job));
    await joinObjects(planGroups(parts), key);
    return { key, moved };
  }
  const parts = partSources(job);
  // Index parts are about a third of their parts' size (bench:bulk: 35 MB beside 110 MB of results), too
  // small for S3 to copy part by part: joined in one piece without knowing their sizes up front, at the
  // same time as the results (those, at the default chunk size, are copied by S3 part by part).
  const indexParts = parts.map((part) => ({ key: partIndexKey(part.key), bytes: 0 }));
  await Promise.all([
    joinObjects(planGroups(parts), key),
    joinObjects(planGroups(indexParts, Number.POSITIVE_INFINITY), resultIndexKey(job.companyId, job.jobId)),
  ]);
  return { key, moved: emptyStatistics() };
}
