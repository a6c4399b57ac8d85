// The local S3's gate as an attacker meets it: forged or foreign Authorization headers, V2 signatures and
// replays get 403 and change nothing; the SDK's own signed calls pass; a header-signed body must hash to
// the x-amz-content-sha256 its signature covers. Also: durable events (on disk before the PUT answers,
// redelivered by deliverPending after a restart) and no leftover partial files.
import { createHash, createHmac } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import {
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { S3Event } from 'aws-lambda';
import { resetS3, s3 as runtimeS3 } from '../../functions/clients/s3';
import { resetSettings } from '../../functions/settings';
import { putObject } from '../../functions/store/bucket';
import { startLocalS3, type LocalS3, type LocalS3Options } from '../../local/s3/local-s3';
import { localS3Client } from '../helpers/local-s3-client';

const bucket = 'mailvet-gate-test';
const credentials = { accessKeyId: 'gate-key', secretAccessKey: 'gate-secret' };

let dataDir: string;
let local: LocalS3;
let s3: S3Client;

function client(endpoint: string, keys = credentials): S3Client {
  return localS3Client(endpoint, keys);
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

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * A header-signed SigV4 request written out by hand (not by the SDK's signer, so the gate is checked
 * against the definition, not against itself): path-style, no query, the three headers S3 requires.
 */
function signedHeaders(
  method: string,
  url: URL,
  payloadHash: string,
  secret = credentials.secretAccessKey,
): Record<string, string> {
  const date = amzDate();
  const day = date.slice(0, 8);
  const scope = `${day}/us-east-1/s3/aws4_request`;
  const canonical = [
    method,
    url.pathname,
    '',
    `host:${url.host}\nx-amz-content-sha256:${payloadHash}\nx-amz-date:${date}`,
    '',
    'host;x-amz-content-sha256;x-amz-date',
    payloadHash,
  ].join('\n');
  const toSign = ['AWS4-HMAC-SHA256', date, scope, sha256(canonical)].join('\n');
  let key: Buffer = createHmac('sha256', `AWS4${secret}`).update(day).digest();
  for (const part of ['us-east-1', 's3', 'aws4_request'])
    key = createHmac('sha256', key).update(part).digest();
  const signature = createHmac('sha256', key).update(toSign).digest('hex');
  return {
    authorization: `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${scope}, SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=${signature}`,
    'x-amz-content-sha256': payloadHash,
    'x-amz-date': date,
  };
}

describe('the body of a header-signed request', () => {
  const objectUrl = () => new URL(`${local.url}/${bucket}/results/acme.csv`);

  it('passes with the hex digest its signature covers', async () => {
    const url = new URL(`${local.url}/${bucket}/results/hashed.csv`);
    const body = 'email,status\na@x.test,safe\n';
    const put = await fetch(url, { method: 'PUT', headers: signedHeaders('PUT', url, sha256(body)), body });
    expect(put.status).toBe(200);
    expect(await readObject('results/hashed.csv')).toBe(body);
  });

  it('is refused with 400 XAmzContentSHA256Mismatch when it does not hash to that digest, and stores nothing', async () => {
    // A genuine signature over one body (a captured request), replayed with another body.
    const headers = signedHeaders('PUT', objectUrl(), sha256('email,status\n'));
    const put = await fetch(objectUrl(), { method: 'PUT', headers, body: 'email,status\nforged\n' });
    expect(put.status).toBe(400);
    const text = await put.text();
    expect(text).toContain('<Code>XAmzContentSHA256Mismatch</Code>');
    expect(text).toContain(
      `<S3ComputedContentSHA256>${sha256('email,status\nforged\n')}</S3ComputedContentSHA256>`,
    );
    expect(await readObject('results/acme.csv')).toBe('email,status\n');
    // A large body too: the check holds back only the last piece, never the whole body.
    const large = 'x'.repeat(3 * 1024 * 1024);
    const bigPut = await fetch(objectUrl(), {
      method: 'PUT',
      headers: signedHeaders('PUT', objectUrl(), sha256(large.slice(1))),
      body: large,
    });
    expect(bigPut.status).toBe(400);
    expect(await readObject('results/acme.csv')).toBe('email,status\n');
    // s3rver removes its temporary file once it sees the aborted body; wait for that, not for a time.
    const partials = () =>
      readdirSync(dataDir, { recursive: true }).filter((name) => String(name).endsWith('.partial'));
    for (let waited = 0; partials().length > 0 && waited < 10_000; waited += 50)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(partials()).toEqual([]);
  });

  it('goes through the proxy to be hashed, while a request signed for no body and sending none does not', async () => {
    // the proxy's requests to s3rver go through node:http's request(), with the client's path
    const proxied = jest.spyOn(http, 'request');
    const proxiedPaths = () =>
      proxied.mock.calls.map(([options]) => (options as http.RequestOptions).path ?? String(options));
    try {
      const got = await s3.send(
        new GetObjectCommand({ Bucket: bucket, Key: 'results/acme.csv', Range: 'bytes=0-4' }),
      );
      expect(await got.Body!.transformToString()).toBe('email');
      const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'results/acme.csv' }));
      expect(head.ContentLength).toBe('email,status\n'.length);
      const listed = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'results/acme' }));
      expect(listed.Contents?.map((object) => object.Key)).toEqual(['results/acme.csv']);
      expect(proxiedPaths().filter((p) => p.includes(`/${bucket}`))).toEqual([]);
      const url = new URL(`${local.url}/${bucket}/results/hashed-again.csv`);
      const body = 'email\nb@x.test\n';
      const put = await fetch(url, { method: 'PUT', headers: signedHeaders('PUT', url, sha256(body)), body });
      expect(put.status).toBe(200);
      expect(proxiedPaths()).toContain(`/${bucket}/results/hashed-again.csv`);
    } finally {
      proxied.mockRestore();
    }
  });

  it('is refused when it was signed as no body but carries one', async () => {
    const put = await fetch(objectUrl(), {
      method: 'PUT',
      headers: signedHeaders('PUT', objectUrl(), sha256('')),
      body: 'email,status\nsmuggled\n',
    });
    expect(put.status).toBe(400);
    expect(await put.text()).toContain('<Code>XAmzContentSHA256Mismatch</Code>');
    expect(await readObject('results/acme.csv')).toBe('email,status\n');
  });

  it('is not hashed with UNSIGNED-PAYLOAD, as S3 does (the signature leaves the body out)', async () => {
    const url = new URL(`${local.url}/${bucket}/results/unsigned.csv`);
    const put = await fetch(url, {
      method: 'PUT',
      headers: signedHeaders('PUT', url, 'UNSIGNED-PAYLOAD'),
      body: 'any',
    });
    expect(put.status).toBe(200);
    expect(await readObject('results/unsigned.csv')).toBe('any');
  });

  it("gets the runtime's own bodies as UNSIGNED-PAYLOAD: neither side hashes them", async () => {
    const saved = { ...process.env };
    Object.assign(process.env, {
      AWS_ENDPOINT_URL_S3: local.url,
      BUCKET_NAME: bucket,
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    });
    resetSettings();
    resetS3();
    try {
      const sent: string[] = [];
      runtimeS3().middlewareStack.add(
        (next) => (args) => {
          const headers = (args.request as { headers: Record<string, string> }).headers;
          sent.push(headers['x-amz-content-sha256']!);
          return next(args);
        },
        { step: 'finalizeRequest', name: 'recordPayloadHash' },
      );
      await putObject('results/runtime.csv', Buffer.from('email\nann@example.com\n'), 'text/csv');
      expect(sent).toEqual(['UNSIGNED-PAYLOAD']);
      expect(await readObject('results/runtime.csv')).toBe('email\nann@example.com\n');
    } finally {
      process.env = saved;
      resetSettings();
      resetS3();
    }
  });

  it('refuses aws-chunked STREAMING-* payloads with 501 and any other value with 400, a forged one with 403', async () => {
    const streaming = 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD';
    const chunked = await fetch(objectUrl(), {
      method: 'PUT',
      headers: signedHeaders('PUT', objectUrl(), streaming),
      body: '0;chunk-signature=x\r\n\r\n',
    });
    expect(chunked.status).toBe(501);
    expect(await chunked.text()).toContain('<Code>NotImplemented</Code>');
    const bogus = await fetch(objectUrl(), {
      method: 'PUT',
      headers: signedHeaders('PUT', objectUrl(), 'not-a-digest'),
      body: 'x',
    });
    expect(bogus.status).toBe(400);
    expect(await bogus.text()).toContain('<Code>InvalidArgument</Code>');
    // Without the secret the payload hash is never looked at: 403 first.
    const forged = await fetch(objectUrl(), {
      method: 'PUT',
      headers: signedHeaders('PUT', objectUrl(), streaming, 'guessed'),
      body: 'x',
    });
    expect(forged.status).toBe(403);
    expect(await readObject('results/acme.csv')).toBe('email,status\n');
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
