// The local S3 as clients see it: presigned URLs through fetch and the SDK's own calls over real HTTP,
// the SigV4 verifier's refusals, the ObjectCreated events the subscriber receives, and restarts.
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteBucketCorsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutBucketCorsCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
  UploadPartCopyCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { S3Event } from 'aws-lambda';
import { decodeS3Key } from '../../functions/domain/s3-keys';
import { startLocalS3, type LocalS3, type LocalS3Options } from '../../local/s3/local-s3';
import { localS3Client } from '../helpers/local-s3-client';

const bucket = 'mailvet-local-s3-test';
const credentials = { accessKeyId: 'local-s3-test', secretAccessKey: 'local-s3-test-secret' };

let dataDir: string;
let local: LocalS3;
let s3: S3Client;
const events: S3Event[] = [];

function options(): LocalS3Options {
  return {
    dataDir,
    port: 0,
    buckets: [bucket],
    region: 'eu-west-1',
    ...credentials,
    prefix: 'uploads/',
    onObjectCreated: (event) => {
      events.push(event);
      if (event.Records[0]?.s3.object.key.endsWith('boom.csv')) throw new Error('subscriber failure');
    },
  };
}

function client(endpoint: string): S3Client {
  return localS3Client(endpoint, credentials, 'eu-west-1');
}

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'mailvet-local-s3-'));
  local = await startLocalS3(options());
  s3 = client(local.url);
});

afterAll(async () => {
  s3?.destroy();
  await local?.close();
  await rm(dataDir, { recursive: true, force: true });
});

beforeEach(() => {
  events.length = 0;
});

const csvUploadUrl = (key: string, expiresIn = 300) =>
  getSignedUrl(s3, new PutObjectCommand({ Bucket: bucket, Key: key, ContentType: 'text/csv' }), {
    expiresIn,
    signableHeaders: new Set(['content-type']),
  });

const csv = () => Buffer.concat([Buffer.from('email\nzoë@example.com\n'), randomBytes(256)]);

/** A text/csv upload through a presigned URL, as the console sends it. */
const putCsv = async (key: string, body: Buffer = csv()) =>
  fetch(await csvUploadUrl(key), { method: 'PUT', headers: { 'content-type': 'text/csv' }, body });

async function readObject(key: string): Promise<Buffer> {
  const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return Buffer.from(await object.Body!.transformToByteArray());
}

async function exists(key: string): Promise<boolean> {
  try {
    await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    return true;
  } catch (error) {
    if ((error as { name?: string }).name === 'NotFound') return false;
    throw error;
  }
}

async function expectS3Error(response: Response, status: number, code: string): Promise<string> {
  const body = await response.text();
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toContain('application/xml');
  expect(body).toContain(`<Code>${code}</Code>`);
  return body;
}

describe('presigned PUT', () => {
  it('stores a text/csv upload byte for byte', async () => {
    const body = csv();
    const url = await csvUploadUrl('uploads/accepted.csv');
    expect(new URL(url).searchParams.get('X-Amz-SignedHeaders')).toBe('content-type;host');

    const response = await fetch(url, { method: 'PUT', headers: { 'content-type': 'text/csv' }, body });
    expect(response.status).toBe(200);

    expect((await readObject('uploads/accepted.csv')).equals(body)).toBe(true);
    const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'uploads/accepted.csv' }));
    expect(head.ContentType).toBe('text/csv');
  });

  it('refuses another Content-Type and a missing one with 403 SignatureDoesNotMatch, storing nothing', async () => {
    const url = await csvUploadUrl('uploads/wrong-type.csv');
    const wrong = await fetch(url, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: csv() });
    await expectS3Error(wrong, 403, 'SignatureDoesNotMatch');
    // A Uint8Array body makes fetch send no Content-Type at all.
    const missing = await fetch(url, { method: 'PUT', body: new Uint8Array(csv()) });
    await expectS3Error(missing, 403, 'SignatureDoesNotMatch');

    expect(await exists('uploads/wrong-type.csv')).toBe(false);
    await local.drain();
    expect(events).toHaveLength(0);
  });

  it('refuses a tampered signature, key or query parameter with 403', async () => {
    const url = new URL(await csvUploadUrl('uploads/tamper.csv'));
    const signature = url.searchParams.get('X-Amz-Signature')!;
    const put = (target: URL) =>
      fetch(target, { method: 'PUT', headers: { 'content-type': 'text/csv' }, body: csv() });

    const badSignature = new URL(url);
    badSignature.searchParams.set(
      'X-Amz-Signature',
      signature.replace(/.$/, (c) => (c === '0' ? '1' : '0')),
    );
    await expectS3Error(await put(badSignature), 403, 'SignatureDoesNotMatch');

    const otherKey = new URL(url);
    otherKey.pathname = otherKey.pathname.replace('tamper.csv', 'elsewhere.csv');
    await expectS3Error(await put(otherKey), 403, 'SignatureDoesNotMatch');

    const longerLife = new URL(url);
    longerLife.searchParams.set('X-Amz-Expires', '3600');
    await expectS3Error(await put(longerLife), 403, 'SignatureDoesNotMatch');

    expect(await exists('uploads/tamper.csv')).toBe(false);
    expect(await exists('uploads/elsewhere.csv')).toBe(false);
  });

  it('refuses an expired URL with 403 "Request has expired"', async () => {
    const url = await csvUploadUrl('uploads/expired.csv', 1);
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const response = await fetch(url, {
      method: 'PUT',
      headers: { 'content-type': 'text/csv' },
      body: csv(),
    });
    const body = await expectS3Error(response, 403, 'AccessDenied');
    expect(body).toContain('<Message>Request has expired</Message>');
    expect(await exists('uploads/expired.csv')).toBe(false);
  });

  it('refuses an x-amz-* header the signature does not cover (a copy smuggled into an upload)', async () => {
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'results/secret.csv', Body: 'secret' }));
    const url = await csvUploadUrl('uploads/smuggled.csv');
    const response = await fetch(url, {
      method: 'PUT',
      headers: { 'content-type': 'text/csv', 'x-amz-copy-source': `${bucket}/results/secret.csv` },
    });
    await expectS3Error(response, 403, 'AccessDenied');
    expect(await exists('uploads/smuggled.csv')).toBe(false);
  });

  it('agrees with the SDK signer on keys with spaces, unicode and reserved characters', async () => {
    const key = "uploads/zoë's list (1) + [final]!*~.csv";
    const body = csv();
    const response = await putCsv(key, body);
    expect(response.status).toBe(200);
    expect((await readObject(key)).equals(body)).toBe(true);
  });

  it('answers a refused upload sent with Expect: 100-continue before the body is sent', async () => {
    const url = new URL(await csvUploadUrl('uploads/continue.csv'));
    const { status, continued } = await new Promise<{ status?: number; continued: boolean }>(
      (resolve, reject) => {
        let continued = false;
        const request = http.request(url, {
          method: 'PUT',
          headers: {
            'content-type': 'text/plain',
            'content-length': 100 * 1024 * 1024,
            expect: '100-continue',
          },
        });
        request.on('continue', () => (continued = true));
        request.on('response', (response) => {
          response.resume();
          request.destroy();
          resolve({ status: response.statusCode, continued });
        });
        request.on('error', reject);
        request.flushHeaders();
      },
    );
    expect(status).toBe(403);
    expect(continued).toBe(false);
  });

  it('stores nothing when the client goes away mid-upload', async () => {
    const url = new URL(await csvUploadUrl('uploads/aborted.csv'));
    await new Promise<void>((resolve) => {
      const request = http.request(url, {
        method: 'PUT',
        headers: { 'content-type': 'text/csv', 'content-length': 1024 * 1024 },
      });
      request.on('error', () => resolve());
      request.write(randomBytes(64 * 1024), () => setTimeout(() => request.destroy(), 200));
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await exists('uploads/aborted.csv')).toBe(false);
    await local.drain();
    expect(events).toHaveLength(0);
  });
});

describe('requests without a signature', () => {
  it('are refused with 403 AccessDenied', async () => {
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'results/public.csv', Body: 'a,b\n' }));
    await expectS3Error(await fetch(`${local.url}/${bucket}/results/public.csv`), 403, 'AccessDenied');
    await expectS3Error(
      await fetch(`${local.url}/${bucket}/uploads/anonymous.csv`, { method: 'PUT', body: 'x' }),
      403,
      'AccessDenied',
    );
    await expectS3Error(await fetch(`${local.url}/${bucket}`), 403, 'AccessDenied');
    expect(await exists('uploads/anonymous.csv')).toBe(false);
  });
});

describe('presigned GET', () => {
  it('serves a byte range with the Content-Disposition it was signed with', async () => {
    const body = Buffer.from('email,status\na@example.com,valid\n');
    await s3.send(
      new PutObjectCommand({ Bucket: bucket, Key: 'results/job.csv', Body: body, ContentType: 'text/csv' }),
    );
    const disposition = 'attachment; filename="job_processed_by_mailvet.csv"';
    const url = await getSignedUrl(
      s3,
      new GetObjectCommand({
        Bucket: bucket,
        Key: 'results/job.csv',
        ResponseContentDisposition: disposition,
      }),
      { expiresIn: 3600 },
    );

    const ranged = await fetch(url, { headers: { range: 'bytes=6-11' } });
    expect(ranged.status).toBe(206);
    expect(Buffer.from(await ranged.arrayBuffer()).toString()).toBe(body.subarray(6, 12).toString());
    expect(ranged.headers.get('content-range')).toBe(`bytes 6-11/${body.length}`);
    expect(ranged.headers.get('content-disposition')).toBe(disposition);

    const whole = await fetch(url);
    expect(whole.status).toBe(200);
    expect(Buffer.from(await whole.arrayBuffer()).equals(body)).toBe(true);

    // The disposition is part of the signature: another file name is refused.
    const renamed = new URL(url);
    renamed.searchParams.set('response-content-disposition', 'attachment; filename="other.csv"');
    await expectS3Error(await fetch(renamed), 403, 'SignatureDoesNotMatch');
  });
});

describe('ObjectCreated events', () => {
  it('reach the subscriber once per object, key URL-encoded as S3 does', async () => {
    const key = 'uploads/my file+1.csv';
    const body = csv();
    const response = await putCsv(key, body);
    expect(response.status).toBe(200);
    await local.drain();

    expect(events).toHaveLength(1);
    const [record] = events[0]!.Records;
    expect(events[0]!.Records).toHaveLength(1);
    expect(record).toMatchObject({
      eventVersion: '2.1',
      eventSource: 'aws:s3',
      awsRegion: 'eu-west-1',
      eventName: 'ObjectCreated:Put',
      s3: {
        bucket: { name: bucket, arn: `arn:aws:s3:::${bucket}` },
        object: {
          key: 'uploads/my+file%2B1.csv',
          size: body.length,
          eTag: response.headers.get('etag')!.replace(/"/g, ''),
        },
      },
    });
    expect(record!.s3.object.sequencer).toMatch(/^[0-9A-F]{16,}$/);
    expect(new Date(record!.eventTime).toISOString()).toBe(record!.eventTime);
    expect(decodeS3Key(record!.s3.object.key)).toBe(key);
    expect((await readObject(decodeS3Key(record!.s3.object.key))).equals(body)).toBe(true);
  });

  it('skip keys outside the subscribed prefix', async () => {
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'results/not-announced.csv', Body: 'x' }));
    await local.drain();
    expect(events).toHaveLength(0);
  });

  it('name a copy ObjectCreated:Copy, with its ETag', async () => {
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'results/source.csv', Body: 'a,b\n' }));
    await s3.send(
      new CopyObjectCommand({
        Bucket: bucket,
        Key: 'uploads/copied.csv',
        CopySource: `${bucket}/results/source.csv`,
      }),
    );
    await local.drain();
    expect(events).toHaveLength(1);
    expect(events[0]!.Records[0]).toMatchObject({
      eventName: 'ObjectCreated:Copy',
      s3: { object: { key: 'uploads/copied.csv', size: 4, eTag: expect.stringMatching(/^[0-9a-f]{32}$/) } },
    });
  });

  it('survive a subscriber that throws: the server keeps serving and delivering', async () => {
    const first = await putCsv('uploads/boom.csv');
    expect(first.status).toBe(200);
    await local.drain();
    const second = await putCsv('uploads/after-boom.csv');
    expect(second.status).toBe(200);
    await local.drain();
    expect(events.map((e) => e.Records[0]!.s3.object.key)).toEqual([
      'uploads/boom.csv',
      'uploads/after-boom.csv',
    ]);
  });
});

describe('multipart upload through the SDK', () => {
  it('assembles the parts and is announced as ObjectCreated:CompleteMultipartUpload', async () => {
    const key = 'uploads/multi part.csv';
    const parts = [randomBytes(5 * 1024 * 1024), randomBytes(1024)];
    const { UploadId } = await s3.send(
      new CreateMultipartUploadCommand({ Bucket: bucket, Key: key, ContentType: 'text/csv' }),
    );
    const uploaded = [];
    for (const [index, part] of parts.entries()) {
      const { ETag } = await s3.send(
        new UploadPartCommand({ Bucket: bucket, Key: key, UploadId, PartNumber: index + 1, Body: part }),
      );
      uploaded.push({ ETag, PartNumber: index + 1 });
    }
    const completed = await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: bucket,
        Key: key,
        UploadId,
        MultipartUpload: { Parts: uploaded },
      }),
    );

    expect((await readObject(key)).equals(Buffer.concat(parts))).toBe(true);
    // S3's multipart ETag: the MD5 of the parts' MD5s, then the part count
    const md5 = (bytes: Buffer) => createHash('md5').update(bytes).digest();
    const etag = `"${md5(Buffer.concat(parts.map(md5))).toString('hex')}-2"`;
    expect(completed.ETag).toBe(etag);
    expect((await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }))).ETag).toBe(etag);
    await local.drain();
    expect(events).toHaveLength(1);
    expect(events[0]!.Records[0]).toMatchObject({
      eventName: 'ObjectCreated:CompleteMultipartUpload',
      s3: { object: { key: 'uploads/multi+part.csv', size: 5 * 1024 * 1024 + 1024 } },
    });
  });
});

describe('UploadPartCopy', () => {
  const md5 = (bytes: Buffer) => createHash('md5').update(bytes).digest();

  it('copies stored objects into parts: their bytes, their MD5 as ETag, untouched by a later PUT', async () => {
    const first = randomBytes(5 * 1024 * 1024);
    const second = randomBytes(2048);
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'parts/a.csv', Body: first }));
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'parts/b c.csv', Body: second }));
    const key = 'results/copied.csv';
    const { UploadId } = await s3.send(
      new CreateMultipartUploadCommand({ Bucket: bucket, Key: key, ContentType: 'text/csv' }),
    );
    const copied = [];
    for (const [index, source] of ['parts/a.csv', 'parts/b c.csv'].entries()) {
      const { CopyPartResult } = await s3.send(
        new UploadPartCopyCommand({
          Bucket: bucket,
          Key: key,
          UploadId,
          PartNumber: index + 1,
          CopySource: `${bucket}/${encodeURI(source)}`,
        }),
      );
      copied.push({ ETag: CopyPartResult!.ETag, PartNumber: index + 1 });
    }
    expect(copied.map((part) => part.ETag)).toEqual(
      [first, second].map((b) => `"${md5(b).toString('hex')}"`),
    );
    // the sources change after the copy: the parts keep what was copied
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'parts/a.csv', Body: 'replaced' }));
    await s3.send(
      new CopyObjectCommand({ Bucket: bucket, Key: 'parts/b c.csv', CopySource: `${bucket}/parts/a.csv` }),
    );
    const completed = await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: bucket,
        Key: key,
        UploadId,
        MultipartUpload: { Parts: copied },
      }),
    );
    expect((await readObject(key)).equals(Buffer.concat([first, second]))).toBe(true);
    expect(completed.ETag).toBe(`"${md5(Buffer.concat([md5(first), md5(second)])).toString('hex')}-2"`);
    expect((await readObject('parts/a.csv')).toString()).toBe('replaced');
    expect((await readObject('parts/b c.csv')).toString()).toBe('replaced');
  });

  it('gives a part copied from a multipart object the MD5 of its bytes', async () => {
    const body = await readObject('results/copied.csv');
    const { UploadId } = await s3.send(
      new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'results/again.csv' }),
    );
    const { CopyPartResult } = await s3.send(
      new UploadPartCopyCommand({
        Bucket: bucket,
        Key: 'results/again.csv',
        UploadId,
        PartNumber: 1,
        CopySource: `${bucket}/results/copied.csv`,
      }),
    );
    expect(CopyPartResult!.ETag).toBe(`"${md5(body).toString('hex')}"`);
  });

  it('refuses a missing source, an unknown upload, a malformed source and a copy range', async () => {
    const { UploadId } = await s3.send(
      new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'results/refused.csv' }),
    );
    const copy = (input: Partial<ConstructorParameters<typeof UploadPartCopyCommand>[0]>) =>
      s3.send(
        new UploadPartCopyCommand({
          Bucket: bucket,
          Key: 'results/refused.csv',
          UploadId,
          PartNumber: 1,
          CopySource: `${bucket}/parts/a.csv`,
          ...input,
        }),
      );
    await expect(copy({ CopySource: `${bucket}/parts/missing.csv` })).rejects.toMatchObject({
      name: 'NoSuchKey',
      $metadata: { httpStatusCode: 404 },
    });
    await expect(copy({ UploadId: 'no-such-upload' })).rejects.toMatchObject({
      name: 'NoSuchUpload',
      $metadata: { httpStatusCode: 404 },
    });
    await expect(copy({ Key: 'results/other.csv' })).rejects.toMatchObject({ name: 'NoSuchUpload' });
    await expect(copy({ CopySource: `${bucket}/parts/%E0%A4%A.csv` })).rejects.toMatchObject({
      name: 'InvalidArgument',
      $metadata: { httpStatusCode: 400 },
    });
    await expect(copy({ CopySourceRange: 'bytes=0-9' })).rejects.toMatchObject({
      name: 'NotImplemented',
      $metadata: { httpStatusCode: 501 },
    });
  });
});

describe('ranged GET', () => {
  it('serves the first byte alone, the tail, and refuses a range past the end with 416', async () => {
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'results/range.csv', Body: '0123456789' }));
    const range = async (Range: string) =>
      Buffer.from(
        await (
          await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'results/range.csv', Range }))
        ).Body!.transformToByteArray(),
      ).toString();
    expect(await range('bytes=0-0')).toBe('0');
    expect(await range('bytes=7-')).toBe('789');
    expect(await range('bytes=3-100')).toBe('3456789');
    await expect(range('bytes=20-30')).rejects.toMatchObject({ $metadata: { httpStatusCode: 416 } });
  });
});

describe("the bucket's CORS rules", () => {
  it('answer preflights from the configured origins, and change as soon as they are replaced or deleted', async () => {
    const corsDir = await mkdtemp(path.join(os.tmpdir(), 'mailvet-local-s3-cors-'));
    const server = await startLocalS3({ ...options(), dataDir: corsDir, corsOrigins: ['https://one.test'] });
    const sdk = client(server.url);
    const preflight = async (origin: string) =>
      (
        await fetch(`${server.url}/${bucket}/uploads/a.csv`, {
          method: 'OPTIONS',
          headers: { origin, 'access-control-request-method': 'PUT' },
        })
      ).status;
    try {
      // asked twice: the second answer comes from the rules as kept, not read again
      expect([await preflight('https://one.test'), await preflight('https://one.test')]).toEqual([200, 200]);
      expect(await preflight('https://two.test')).toBe(403);
      await sdk.send(
        new PutBucketCorsCommand({
          Bucket: bucket,
          CORSConfiguration: {
            CORSRules: [
              { AllowedOrigins: ['https://two.test'], AllowedMethods: ['PUT'], AllowedHeaders: ['*'] },
            ],
          },
        }),
      );
      expect(await preflight('https://two.test')).toBe(200);
      expect(await preflight('https://one.test')).toBe(403);
      await sdk.send(new DeleteBucketCorsCommand({ Bucket: bucket }));
      expect(await preflight('https://two.test')).toBe(403);
    } finally {
      sdk.destroy();
      await server.close();
      await rm(corsDir, { recursive: true, force: true });
    }
  });
});

describe('a restart', () => {
  it('keeps the data: close() and a new start on the same dataDir serve the same objects', async () => {
    const body = csv();
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'results/durable.csv', Body: body }));
    await local.close();
    s3.destroy();

    local = await startLocalS3(options());
    s3 = client(local.url);
    expect((await readObject('results/durable.csv')).equals(body)).toBe(true);
    // Presigned uploads work against the restarted server too.
    const response = await putCsv('uploads/after-restart.csv', body);
    expect(response.status).toBe(200);
  });
});
