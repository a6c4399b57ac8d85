// A read of the local S3 answers from one version of the object, whatever PUTs of the same key do
// meanwhile: the bytes, their Content-Length and their ETag all belong together, and no read hangs.
// A conditional GET answered 304 leaves no file open.
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { useLocalS3 } from '../helpers/local-s3-fixture';

jest.setTimeout(300_000);

const bucket = 'mailvet-read-consistency-test';
// fsync off (the fixture's default): the race is between the rename and the metadata; flushing only
// slows both sides.
const fixture = useLocalS3('read-consistency', {
  buckets: [bucket],
  accessKeyId: 'read-consistency-test',
  secretAccessKey: 'read-consistency-secret',
});

const hex = (bytes: Buffer) => createHash('md5').update(bytes).digest('hex');

/** Rejects when the promise has not settled within ms: a hung read fails the test instead of stalling it. */
function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

describe('the local S3 read path', () => {
  const s3 = () => fixture.s3;
  it('answers every GET and HEAD racing overwrites of the key with one whole version', async () => {
    const key = 'race/object.csv';
    // Bodies of different lengths, from a few bytes to several of the reader's 1 MiB pieces.
    const bodies = [10, 70_000, 1_500_000, 3 * 1024 * 1024 + 7, 200_001].map((length) => randomBytes(length));
    const byLength = new Map(bodies.map((body) => [body.length, body]));
    await s3().send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: bodies[0] }));

    let writing = true;
    const problems: string[] = [];
    let gets = 0;
    let heads = 0;
    const writer = async (offset: number) => {
      for (let n = 0; n < 40; n++)
        await s3().send(
          new PutObjectCommand({ Bucket: bucket, Key: key, Body: bodies[(n + offset) % bodies.length] }),
        );
    };
    const getter = async () => {
      while (writing) {
        const answer = await within(
          30_000,
          'GET',
          (async () => {
            const object = await s3().send(new GetObjectCommand({ Bucket: bucket, Key: key }));
            const bytes = Buffer.from(await object.Body!.transformToByteArray());
            return { bytes, length: object.ContentLength, etag: object.ETag };
          })(),
        ).catch((error: Error) => error);
        gets += 1;
        if (answer instanceof Error) {
          problems.push(`GET failed: ${answer.message}`);
          continue;
        }
        const version = byLength.get(answer.bytes.length);
        if (!version || !version.equals(answer.bytes))
          problems.push(`GET: ${answer.bytes.length} bytes of no version`);
        else if (answer.etag !== `"${hex(version)}"`)
          problems.push(`GET: ${answer.bytes.length} bytes, ETag of another version`);
        if (answer.length !== answer.bytes.length)
          problems.push(`GET: Content-Length ${answer.length} with ${answer.bytes.length} bytes`);
      }
    };
    const header = async () => {
      while (writing) {
        const answer = await within(
          30_000,
          'HEAD',
          s3().send(new HeadObjectCommand({ Bucket: bucket, Key: key })),
        ).catch((error: Error) => error);
        heads += 1;
        if (answer instanceof Error) {
          problems.push(`HEAD failed: ${answer.message}`);
          continue;
        }
        const version = byLength.get(answer.ContentLength ?? -1);
        if (!version || answer.ETag !== `"${hex(version)}"`)
          problems.push(
            `HEAD: Content-Length ${answer.ContentLength} with ETag ${answer.ETag} of another version`,
          );
      }
    };
    const reading = Promise.all([getter(), getter(), getter(), header()]);
    await Promise.all([writer(1), writer(3)]);
    writing = false;
    await reading;
    expect(problems.slice(0, 10)).toEqual([]);
    expect(gets).toBeGreaterThan(20);
    expect(heads).toBeGreaterThan(5);
  });

  it("never serves another file's ETag: sidecars left naming the old file (a crash) are outwaited", async () => {
    const key = 'crashed/object.csv';
    const body = randomBytes(20_000);
    await s3().send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: 'text/csv' }));
    // As a crash between a PUT's rename and its metadata leaves them: the MD5 and the metadata of a
    // file that is gone.
    const object = path.join(fixture.dataDir, bucket, `${key}._S3rver_object`);
    await writeFile(`${object}.md5`, `${'0'.repeat(32)} 1:2:3`);
    const metadataFile = path.join(fixture.dataDir, bucket, `${key}._S3rver_metadata.json`);
    const metadata = JSON.parse(await readFile(metadataFile, 'utf8')) as Record<string, string>;
    await writeFile(metadataFile, JSON.stringify({ ...metadata, 'mailvet-object-identity': '1:2:3' }));
    for (let n = 0; n < 2; n++) {
      const answer = await s3().send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      expect(Buffer.from(await answer.Body!.transformToByteArray()).equals(body)).toBe(true);
      expect(answer.ETag).toBe(`"${hex(body)}"`);
      expect(answer.ContentType).toBe('text/csv');
    }
  });

  it('closes the object it opened when a conditional GET is answered 304 Not Modified', async () => {
    const key = 'conditional/object.csv';
    await s3().send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: randomBytes(50_000) }));
    const { ETag, LastModified } = await s3().send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    const notModified = async (conditions: { IfNoneMatch?: string; IfModifiedSince?: Date }) => {
      const status = await s3()
        .send(new GetObjectCommand({ Bucket: bucket, Key: key, ...conditions }))
        .then(() => 200)
        .catch((error: { $metadata?: { httpStatusCode?: number } }) => error.$metadata?.httpStatusCode);
      expect(status).toBe(304);
    };
    // Warm: the client's kept-alive connection is open before the count.
    await notModified({ IfNoneMatch: ETag! });
    const openFiles = () => readdirSync('/proc/self/fd').length;
    const before = openFiles();
    for (let n = 0; n < 100; n++) {
      await notModified({ IfNoneMatch: ETag! });
      await notModified({ IfModifiedSince: new Date(LastModified!.getTime() + 60_000) });
    }
    // A file closes a moment after its stream is destroyed.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(openFiles() - before).toBeLessThan(10);
  });
});
