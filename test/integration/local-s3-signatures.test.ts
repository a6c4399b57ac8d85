// The local S3's presigned-URL verifier against the SDK's own presigner, over many generated keys, and the
// event-key encoding against its decoder. No server: the URLs go straight into the front's decision.
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import fc from 'fast-check';
import { decodeS3Key, encodeS3EventKey } from '../../functions/domain/s3-keys';
import { authorize } from '../../local/s3/local-s3';
import { localS3Client } from '../helpers/local-s3-client';

const keys = { accessKeyId: 'sig-test', secretAccessKey: 'sig-test-secret' };
const s3 = localS3Client('http://127.0.0.1:4599', keys, 'eu-central-1');

afterAll(() => s3.destroy());

/** What an HTTP client sends for the URL: the WHATWG parser's path and query, and its Host. */
function requestFor(url: string, method: string, headers: Record<string, string> = {}) {
  const parsed = new URL(url);
  return { method, url: parsed.pathname + parsed.search, headers: { host: parsed.host, ...headers } };
}

// Keys a client can send through a URL parser: no `.` or `..` segments (they are normalised away).
const objectKey = fc
  .string({ unit: 'binary', minLength: 1, maxLength: 40 })
  .map((name) => `uploads/${name}`)
  .filter((key) => !key.split('/').some((segment) => segment === '.' || segment === '..'));

describe('the presigned-URL verifier', () => {
  it('accepts every text/csv upload URL the SDK presigns, and refuses it with another type', async () => {
    await fc.assert(
      fc.asyncProperty(objectKey, async (key) => {
        const url = await getSignedUrl(
          s3,
          new PutObjectCommand({ Bucket: 'b', Key: key, ContentType: 'text/csv' }),
          {
            expiresIn: 300,
            signableHeaders: new Set(['content-type']),
          },
        );
        const now = new Date();
        expect(authorize(requestFor(url, 'PUT', { 'content-type': 'text/csv' }), keys, now)).toBeUndefined();
        expect(authorize(requestFor(url, 'PUT', { 'content-type': 'text/plain' }), keys, now)?.code).toBe(
          'SignatureDoesNotMatch',
        );
        expect(authorize(requestFor(url, 'GET', { 'content-type': 'text/csv' }), keys, now)?.code).toBe(
          'SignatureDoesNotMatch',
        );
      }),
      { numRuns: 200 },
    );
  });

  it('accepts presigned GETs whose Content-Disposition carries any file name', async () => {
    await fc.assert(
      fc.asyncProperty(objectKey, fc.string({ unit: 'binary', maxLength: 30 }), async (key, name) => {
        const disposition = `attachment; filename="${name}"`;
        const url = await getSignedUrl(
          s3,
          new GetObjectCommand({ Bucket: 'b', Key: key, ResponseContentDisposition: disposition }),
          { expiresIn: 3600 },
        );
        expect(authorize(requestFor(url, 'GET'), keys, new Date())).toBeUndefined();
      }),
      { numRuns: 100 },
    );
  });

  it('checks the expiry against the signing time, and refuses another secret or access key', async () => {
    const url = await getSignedUrl(s3, new GetObjectCommand({ Bucket: 'b', Key: 'results/x.csv' }), {
      expiresIn: 60,
    });
    const signedAt = new Date();
    expect(authorize(requestFor(url, 'GET'), keys, new Date(signedAt.getTime() + 50_000))).toBeUndefined();
    expect(authorize(requestFor(url, 'GET'), keys, new Date(signedAt.getTime() + 62_000))).toMatchObject({
      status: 403,
      code: 'AccessDenied',
      message: 'Request has expired',
    });
    expect(authorize(requestFor(url, 'GET'), { ...keys, secretAccessKey: 'other' }, signedAt)?.code).toBe(
      'SignatureDoesNotMatch',
    );
    expect(authorize(requestFor(url, 'GET'), { ...keys, accessKeyId: 'other' }, signedAt)?.code).toBe(
      'InvalidAccessKeyId',
    );
  });

  it('refuses a URL whose required parameters are missing with 400', async () => {
    const url = new URL(
      await getSignedUrl(s3, new GetObjectCommand({ Bucket: 'b', Key: 'results/x.csv' }), { expiresIn: 60 }),
    );
    url.searchParams.delete('X-Amz-Credential');
    expect(authorize(requestFor(url.toString(), 'GET'), keys, new Date())).toMatchObject({
      status: 400,
      code: 'AuthorizationQueryParametersError',
    });
  });
});

describe('S3 event keys', () => {
  it('encode as S3 does (space as +, / kept) and decode back to the key', () => {
    expect(encodeS3EventKey('uploads/my file+1 (final).csv')).toBe('uploads/my+file%2B1+%28final%29.csv');
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), (key) => {
        const encoded = encodeS3EventKey(key);
        expect(encoded).toMatch(/^[A-Za-z0-9\-_.*/+%]*$/);
        expect(decodeS3Key(encoded)).toBe(key);
      }),
    );
  });
});
