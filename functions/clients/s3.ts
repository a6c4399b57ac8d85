// The S3 client: one per process, built on first use. Against the local S3, path-style addressing and
// checksums only when required (local emulators store aws-chunked framing verbatim otherwise).
import { S3Client } from '@aws-sdk/client-s3';
import { settings } from '../settings';

let client: S3Client | undefined;

export function s3(): S3Client {
  if (!client) {
    const s = settings();
    const local = s.AWS_ENDPOINT_URL_S3 !== undefined;
    client = new S3Client({
      region: s.AWS_REGION,
      endpoint: s.AWS_ENDPOINT_URL_S3,
      forcePathStyle: s.S3_FORCE_PATH_STYLE || local,
      ...(local
        ? { requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' }
        : {}),
    });
  }
  return client;
}

export function bucketName(): string {
  return settings().BUCKET_NAME;
}

export function resetS3(): void {
  client?.destroy();
  client = undefined;
}
