// An S3 client for the local S3 alone (tests and benches that start it without the runtime): path-style
// addressing and checksums only when required, as the runtime's own clients talk to it.
import { S3Client } from '@aws-sdk/client-s3';

export function localS3Client(
  endpoint: string,
  credentials: { accessKeyId: string; secretAccessKey: string },
  region = 'us-east-1',
): S3Client {
  return new S3Client({
    endpoint,
    region,
    forcePathStyle: true,
    credentials,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}
