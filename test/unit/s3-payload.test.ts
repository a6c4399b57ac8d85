// How the functions' S3 client signs a body in AWS (an https endpoint, the SDK's default checksums): as
// UNSIGNED-PAYLOAD with the CRC32 checksum S3 checks, so no part is SHA-256ed for its signature. The
// request is caught once signed, before anything is sent.
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { resetS3, s3 } from '../../functions/clients/s3';
import { resetSettings } from '../../functions/settings';

const saved = { ...process.env };

beforeEach(() => {
  delete process.env.AWS_ENDPOINT_URL_S3;
  delete process.env.S3_FORCE_PATH_STYLE;
  resetSettings();
  resetS3();
});

afterEach(() => {
  process.env = { ...saved };
  resetSettings();
  resetS3();
});

class Signed extends Error {
  constructor(
    readonly url: string,
    readonly headers: Record<string, string>,
  ) {
    super('signed, not sent');
  }
}

/** The request `command` becomes once signed, without sending it. */
async function signedRequest(command: PutObjectCommand | GetObjectCommand): Promise<Signed> {
  const client = s3();
  client.middlewareStack.add(
    (_next) => (args) => {
      const request = args.request as { protocol: string; hostname: string; headers: Record<string, string> };
      throw new Signed(`${request.protocol}//${request.hostname}`, request.headers);
    },
    // after the signer (finalizeRequest), before the send
    { step: 'deserialize', name: 'catchSignedRequest' },
  );
  try {
    await client.send(command);
  } catch (error) {
    if (error instanceof Signed) return error;
    throw error;
  }
  throw new Error('the request was sent');
}

it('signs a part for S3 over https as UNSIGNED-PAYLOAD, with the CRC32 checksum S3 checks', async () => {
  const body = Buffer.from('email,status\nann@example.com,safe\n');
  const signed = await signedRequest(
    new PutObjectCommand({ Bucket: 'mailvet-test-bucket', Key: 'parts/a.csv', Body: body }),
  );
  expect(signed.url).toMatch(/^https:\/\//);
  expect(signed.headers['x-amz-content-sha256']).toBe('UNSIGNED-PAYLOAD');
  expect(signed.headers['x-amz-checksum-crc32']).toEqual(expect.any(String));
  // the payload hash is still one of the signed headers: the signature covers the choice
  expect(signed.headers.authorization).toMatch(/SignedHeaders=[^,]*x-amz-content-sha256/);
});

it('leaves a request without a body signed for the empty body', async () => {
  const signed = await signedRequest(
    new GetObjectCommand({ Bucket: 'mailvet-test-bucket', Key: 'parts/a.csv' }),
  );
  expect(signed.headers['x-amz-content-sha256']).toBe(
    'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  );
});
