// Multipart objects in the local S3 are kept as their parts (local/s3/part-objects.ts): completion writes
// a small manifest instead of the object's bytes. What clients see must not change: bytes, ranges across
// parts, HEAD, ETag, ListObjects, copies, overwrites, deletes, a restart, a read cut by a replacement.
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
  UploadPartCopyCommand,
} from '@aws-sdk/client-s3';
import { startLocalS3, type LocalS3, type LocalS3Options } from '../../local/s3/local-s3';
import { localS3Client } from '../helpers/local-s3-client';

const bucket = 'mailvet-part-objects-test';
const credentials = { accessKeyId: 'part-objects-test', secretAccessKey: 'part-objects-test-secret' };
const MiB = 1024 * 1024;

let dataDir: string;
let local: LocalS3;
let s3: S3Client;

const options = (): LocalS3Options => ({ dataDir, port: 0, buckets: [bucket], ...credentials });
const client = (endpoint: string) => localS3Client(endpoint, credentials);

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'mailvet-part-objects-'));
  local = await startLocalS3(options());
  s3 = client(local.url);
});

afterAll(async () => {
  s3?.destroy();
  await local?.close();
  await rm(dataDir, { recursive: true, force: true });
});

const md5 = (bytes: Buffer) => createHash('md5').update(bytes).digest();
const multipartEtag = (parts: Buffer[]) =>
  `"${md5(Buffer.concat(parts.map(md5))).toString('hex')}-${parts.length}"`;
const objectFile = (key: string) => path.join(dataDir, bucket, `${key}._S3rver_object`);
const partsDirs = async () => readdir(path.join(dataDir, bucket, '._S3rver_multipart')).catch(() => []);

async function read(key: string, range?: string): Promise<Buffer> {
  const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key, Range: range }));
  return Buffer.from(await object.Body!.transformToByteArray());
}

/** A multipart object of these parts: the first uploaded, the others copied from plain objects. */
async function completeMultipart(key: string, parts: Buffer[]): Promise<string> {
  const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key }));
  const etags: string[] = [];
  for (const [index, part] of parts.entries()) {
    if (index === 0) {
      const { ETag } = await s3.send(
        new UploadPartCommand({ Bucket: bucket, Key: key, UploadId, PartNumber: 1, Body: part }),
      );
      etags.push(ETag!);
      continue;
    }
    const source = `sources/${key}-${index}`;
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: source, Body: part }));
    const { CopyPartResult } = await s3.send(
      new UploadPartCopyCommand({
        Bucket: bucket,
        Key: key,
        UploadId,
        PartNumber: index + 1,
        CopySource: `${bucket}/${source}`,
      }),
    );
    etags.push(CopyPartResult!.ETag!);
  }
  const { ETag } = await s3.send(
    new CompleteMultipartUploadCommand({
      Bucket: bucket,
      Key: key,
      UploadId,
      MultipartUpload: { Parts: etags.map((etag, n) => ({ ETag: etag, PartNumber: n + 1 })) },
    }),
  );
  return ETag!;
}

describe('a completed multipart object', () => {
  const parts = [randomBytes(5 * MiB), randomBytes(5 * MiB + 7), randomBytes(1000)];
  const whole = Buffer.concat(parts);

  it('is stored as a small manifest, not its bytes, and served whole, by HEAD and in listings', async () => {
    const etag = await completeMultipart('results/whole.csv', parts);
    expect(etag).toBe(multipartEtag(parts));
    expect((await stat(objectFile('results/whole.csv'))).size).toBeLessThan(4096);
    expect((await read('results/whole.csv')).equals(whole)).toBe(true);
    const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'results/whole.csv' }));
    expect(head).toMatchObject({ ContentLength: whole.length, ETag: etag });
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'results/' }));
    expect(listed.Contents?.map(({ Key, Size, ETag }) => ({ Key, Size, ETag }))).toEqual([
      { Key: 'results/whole.csv', Size: whole.length, ETag: etag },
    ]);
  });

  it('serves ranges within a part, across part boundaries, the tail, and refuses one past the end', async () => {
    const boundary = parts[0]!.length;
    const ranges: [string, number, number][] = [
      ['bytes=0-0', 0, 1],
      [`bytes=${boundary - 3}-${boundary + 2}`, boundary - 3, boundary + 3],
      [`bytes=${boundary - 1}-${whole.length + 100}`, boundary - 1, whole.length],
      [`bytes=${whole.length - 10}-`, whole.length - 10, whole.length],
    ];
    for (const [range, from, to] of ranges)
      expect((await read('results/whole.csv', range)).equals(whole.subarray(from, to))).toBe(true);
    await expect(read('results/whole.csv', `bytes=${whole.length}-`)).rejects.toMatchObject({
      $metadata: { httpStatusCode: 416 },
    });
  });

  it('finishes a GET begun before the object was replaced with the bytes it began with', async () => {
    const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'results/whole.csv' }));
    const body = object.Body as unknown as AsyncIterable<Uint8Array>;
    const received: Buffer[] = [];
    let replaced = false;
    for await (const piece of body) {
      received.push(Buffer.from(piece));
      if (!replaced) {
        replaced = true;
        await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'results/whole.csv', Body: 'replaced' }));
      }
    }
    expect(Buffer.concat(received).equals(whole)).toBe(true);
    expect((await read('results/whole.csv')).toString()).toBe('replaced');
    // the replaced object's parts are gone with it
    expect(await partsDirs()).toEqual([]);
  });

  it('copies as the same multipart object, and each copy outlives the other', async () => {
    const etag = await completeMultipart('results/original.csv', parts);
    const copied = await s3.send(
      new CopyObjectCommand({
        Bucket: bucket,
        Key: 'results/copy.csv',
        CopySource: `${bucket}/results/original.csv`,
      }),
    );
    expect(copied.CopyObjectResult?.ETag).toBe(etag);
    expect(await partsDirs()).toHaveLength(2);
    await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'results/original.csv' }));
    expect(await partsDirs()).toHaveLength(1);
    expect((await read('results/copy.csv')).equals(whole)).toBe(true);
    // a part copied from a multipart object is its bytes, with their MD5
    const { UploadId } = await s3.send(
      new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'results/again.csv' }),
    );
    const { CopyPartResult } = await s3.send(
      new UploadPartCopyCommand({
        Bucket: bucket,
        Key: 'results/again.csv',
        UploadId,
        PartNumber: 1,
        CopySource: `${bucket}/results/copy.csv`,
      }),
    );
    expect(CopyPartResult?.ETag).toBe(`"${md5(whole).toString('hex')}"`);
    await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'results/copy.csv' }));
    expect(await partsDirs()).toEqual([]);
    await expect(read('results/copy.csv')).rejects.toMatchObject({ name: 'NoSuchKey' });
  });

  it('replaced by another multipart object, leaves only the new parts', async () => {
    await completeMultipart('results/twice.csv', parts);
    const second = [randomBytes(5 * MiB), randomBytes(10)];
    const etag = await completeMultipart('results/twice.csv', second);
    expect(await partsDirs()).toHaveLength(1);
    expect((await read('results/twice.csv')).equals(Buffer.concat(second))).toBe(true);
    expect((await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'results/twice.csv' }))).ETag).toBe(
      etag,
    );
  });

  it('survives a restart, which removes parts no manifest names (a crash between two steps)', async () => {
    const orphan = path.join(dataDir, bucket, '._S3rver_multipart', 'orphan');
    await mkdir(orphan, { recursive: true });
    await writeFile(path.join(orphan, 'key'), 'results/twice.csv');
    await writeFile(path.join(orphan, '1'), 'left behind');
    const kept = await partsDirs();
    expect(kept).toContain('orphan');

    await local.close();
    s3.destroy();
    local = await startLocalS3(options());
    s3 = client(local.url);

    expect(await partsDirs()).toEqual(kept.filter((dir) => dir !== 'orphan'));
    expect(await read('results/twice.csv')).toHaveLength(5 * MiB + 10);
  });
});
