// The local S3's gate as an attacker meets it: forged or foreign Authorization headers, V2 signatures and
// replays get 403 and change nothing; the SDK's own signed calls pass. Also: durable events (on disk
// before the PUT answers, redelivered by deliverPending after a restart) and no leftover partial files.
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { S3Event } from 'aws-lambda';
import { startLocalS3, type LocalS3, type LocalS3Options } from '../../local/s3/local-s3';

const bucket = 'mailvet-gate-test';
const credentials = { accessKeyId: 'gate-key', secretAccessKey: 'gate-secret' };

let dataDir: string;
let local: LocalS3;
let s3: S3Client;

function client(endpoint: string, keys = credentials): S3Client {
  return new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: keys,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

function options(extra: Partial<LocalS3Options> = {}): LocalS3Options {
  return { dataDir, port: 0, buckets: [bucket], ...credentials, ...extra };
}

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'mailvet-s3-gate-'));
  local = await startLocalS3(options());
  s3 = client(local.url);
  await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'results/acme.csv', Body: 'email,status\n' }));
});

afterAll(async () => {
  s3?.destroy();
  await local?.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function readObject(key: string): Promise<string> {
  const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return object.Body!.transformToString();
}

const forgedV4 =
  'AWS4-HMAC-SHA256 Credential=gate-key/20260101/us-east-1/s3/aws4_request, ' +
  'SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=' +
  '0'.repeat(64);

function amzDate(): string {
  return new Date()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

describe('the local S3 gate', () => {
  it('refuses forged Authorization headers with 403: list, read and overwrite all fail', async () => {
    const date = amzDate();
    const forged = {
      authorization: forgedV4.replace('20260101', date.slice(0, 8)),
      'x-amz-date': date,
      'x-amz-content-sha256': 'UNSIGNED-PAYLOAD',
    };
    const list = await fetch(`${local.url}/${bucket}?list-type=2`, { headers: forged });
    expect(list.status).toBe(403);
    expect(await list.text()).toContain('<Code>SignatureDoesNotMatch</Code>');
    expect((await fetch(`${local.url}/${bucket}/results/acme.csv`, { headers: forged })).status).toBe(403);
    const overwrite = await fetch(`${local.url}/${bucket}/results/acme.csv`, {
      method: 'PUT',
      headers: forged,
      body: 'forged',
    });
    expect(overwrite.status).toBe(403);
    expect(await readObject('results/acme.csv')).toBe('email,status\n');
  });

  it('refuses any Authorization header that is not a SigV4 signature (V2, garbage) with 403', async () => {
    for (const authorization of ['AWS gate-key:c2lnbmF0dXJl', 'Bearer x', 'anything']) {
      const response = await fetch(`${local.url}/${bucket}/results/acme.csv`, { headers: { authorization } });
      expect(response.status).toBe(403);
    }
    const v2Query = await fetch(
      `${local.url}/${bucket}/results/acme.csv?AWSAccessKeyId=gate-key&Expires=9999999999&Signature=abc`,
    );
    expect(v2Query.status).toBe(403);
  });

  it('refuses a request signed with another secret, and another access key', async () => {
    const wrongSecret = client(local.url, { accessKeyId: 'gate-key', secretAccessKey: 'guessed' });
    const wrongKey = client(local.url, { accessKeyId: 'someone', secretAccessKey: 'gate-secret' });
    try {
      await expect(wrongSecret.send(new ListObjectsV2Command({ Bucket: bucket }))).rejects.toMatchObject({
        $metadata: { httpStatusCode: 403 },
      });
      await expect(
        wrongKey.send(new PutObjectCommand({ Bucket: bucket, Key: 'results/acme.csv', Body: 'x' })),
      ).rejects.toMatchObject({ $metadata: { httpStatusCode: 403 } });
    } finally {
      wrongSecret.destroy();
      wrongKey.destroy();
    }
    expect(await readObject('results/acme.csv')).toBe('email,status\n');
  });

  it('refuses a signed request whose path or headers were changed on the way', async () => {
    // A genuine signature for one object, replayed for another: the signature no longer matches.
    const url = new URL(
      await getSignedUrl(s3, new GetObjectCommand({ Bucket: bucket, Key: 'results/acme.csv' }), {
        expiresIn: 60,
      }),
    );
    expect((await fetch(url)).status).toBe(200);
    url.pathname = `/${bucket}/results/other.csv`;
    expect((await fetch(url)).status).toBe(403);
  });

  it("lets the SDK's correctly signed calls through", async () => {
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'results/signed.csv', Body: 'ok' }));
    expect(await readObject('results/signed.csv')).toBe('ok');
    const { Contents } = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'results/' }));
    expect(Contents?.map((c) => c.Key)).toContain('results/signed.csv');
  });
});

describe('durable events', () => {
  it('writes the event before the PUT answers and delivers it after a restart', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'mailvet-s3-events-'));
    const eventsDir = path.join(dir, 'events');
    const delivered: S3Event[] = [];
    try {
      // Delivery is off until deliverPending(): the event must wait on disk.
      const first = await startLocalS3({
        ...options(),
        dataDir: path.join(dir, 's3'),
        eventsDir,
        onObjectCreated: (event) => void delivered.push(event),
      });
      const sdk = client(first.url);
      await sdk.send(new PutObjectCommand({ Bucket: bucket, Key: 'uploads/job.csv', Body: 'email\n' }));
      expect(readdirSync(eventsDir)).toHaveLength(1);
      sdk.destroy();
      await first.close();

      // A partial file an interrupted upload left behind goes at the next start.
      const partial = path.join(dir, 's3', bucket, 'uploads', 'cut.csv._S3rver_object.abc.partial');
      mkdirSync(path.dirname(partial), { recursive: true });
      writeFileSync(partial, 'half');

      const second = await startLocalS3({
        ...options(),
        dataDir: path.join(dir, 's3'),
        eventsDir,
        onObjectCreated: (event) => void delivered.push(event),
      });
      try {
        expect(existsSync(partial)).toBe(false);
        expect(second.deliverPending()).toBe(1);
        await second.drain();
        expect(delivered.map((e) => e.Records[0]!.s3.object.key)).toEqual(['uploads/job.csv']);
        expect(readdirSync(eventsDir)).toHaveLength(0);
      } finally {
        await second.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
