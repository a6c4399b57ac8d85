// The results assembly against the local S3, as the validator that counts the last chunk runs it: parts
// of at least S3's multipart minimum are copied by S3 (UploadPartCopy, no part read back), smaller ones
// are read and concatenated, and the results and their row index come out whole and in order. Runs as
// validateChunk, so stop() checks every call against that function's deployed role.
import { randomBytes, randomUUID } from 'node:crypto';
import { runAsFunction } from '../../functions/clients/call-recording';
import { assembleResults } from '../../functions/domain/bulk/assemble';
import { partIndexKey, partObjectKey, resultIndexKey } from '../../functions/domain/bulk/object-keys';
import {
  IndexSegmentWriter,
  headerClass,
  readIndex,
  rowIndexContentType,
} from '../../functions/domain/bulk/csv/row-index';
import { minMultipartPartBytes, putObject, readObjectBytes } from '../../functions/store/bucket';
import type { JobItem } from '../../functions/store/jobs/item';
import { useTestRuntime } from '../helpers/local-runtime';

jest.setTimeout(120_000);

const local = useTestRuntime();

/** A job whose chunks wrote parts of these sizes (random bytes) and a row index each. */
async function jobWithParts(sizes: number[]) {
  const job = { companyId: `c-${randomUUID()}`, jobId: randomUUID() };
  const parts: Buffer[] = [];
  const indexes: Buffer[] = [];
  const keys: Record<string, string> = {};
  const bytes: Record<string, number> = {};
  for (const [index, size] of sizes.entries()) {
    const key = partObjectKey(job.companyId, job.jobId, index, randomUUID());
    parts.push(randomBytes(size));
    // one row standing for the part (the join never reads rows)
    const writer = new IndexSegmentWriter();
    writer.row(writer.code(headerClass(0)), size);
    indexes.push(writer.finish());
    await putObject(key, parts[index]!, 'text/csv');
    await putObject(partIndexKey(key), indexes[index]!, rowIndexContentType);
    keys[String(index)] = key;
    bytes[String(index)] = size;
  }
  const item = {
    ...job,
    totalEmails: sizes.length,
    chunkCount: sizes.length,
    partKeys: keys,
    partBytes: bytes,
  } as unknown as JobItem;
  return { item, results: Buffer.concat(parts), index: Buffer.concat(indexes) };
}

async function assembleAsValidator(item: JobItem) {
  const from = local().runtime.awsCalls.length;
  const { key } = await runAsFunction('validateChunk', () => assembleResults(item));
  const calls = local().runtime.awsCalls.slice(from);
  const count = (operation: string, keyStart = '') =>
    calls.filter((c) => c.operation === operation && (c.target.key ?? '').startsWith(keyStart)).length;
  return { key, count };
}

it('has S3 copy every part of at least 5 MiB, and the short last one, reading none of them back', async () => {
  const { item, results, index } = await jobWithParts([
    minMultipartPartBytes,
    minMultipartPartBytes + 17,
    1000,
  ]);

  const { key, count } = await assembleAsValidator(item);

  expect((await readObjectBytes(key)).equals(results)).toBe(true);
  expect((await readObjectBytes(resultIndexKey(item.companyId, item.jobId))).equals(index)).toBe(true);
  expect(count('UploadPartCopy', key)).toBe(3);
  expect(count('UploadPart', key)).toBe(0);
  // only the row indexes are read, and joined in one put
  expect(count('GetObject', 'parts/')).toBe(3);
  expect(count('PutObject', resultIndexKey(item.companyId, item.jobId))).toBe(1);
  const joined = readIndex(await readObjectBytes(resultIndexKey(item.companyId, item.jobId)));
  expect(joined.map((segment) => Array.from(segment.contentBytes))).toEqual([
    [minMultipartPartBytes],
    [minMultipartPartBytes + 17],
    [1000],
  ]);
});

it('concatenates parts under 5 MiB into parts of at least that, copying a lone last part', async () => {
  const { item, results, index } = await jobWithParts([1000, 2000, minMultipartPartBytes, 3000]);

  const { key, count } = await assembleAsValidator(item);

  expect((await readObjectBytes(key)).equals(results)).toBe(true);
  expect((await readObjectBytes(resultIndexKey(item.companyId, item.jobId))).equals(index)).toBe(true);
  // [1000, 2000, 5 MiB] read and sent as part 1; [3000] copied as part 2
  expect(count('UploadPart', key)).toBe(1);
  expect(count('UploadPartCopy', key)).toBe(1);
});
