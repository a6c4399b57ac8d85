// The S3 client: one per process, built on first use. Against the local S3, path-style addressing and
// checksums only when required (local emulators store aws-chunked framing verbatim otherwise).
import './sdk-notice';
import { S3Client } from '@aws-sdk/client-s3';
import { settings } from '../settings';
import { recordCallsOf } from './call-recording';
import { traced } from './tracer';

let client: S3Client | undefined;
let presigner: S3Client | undefined;

function build(checksumsWhenRequired: boolean, cacheMiddleware: boolean): S3Client {
  const s = settings();
  const local = s.AWS_ENDPOINT_URL_S3 !== undefined;
  const built = new S3Client({
    region: s.AWS_REGION,
    endpoint: s.AWS_ENDPOINT_URL_S3,
    forcePathStyle: s.S3_FORCE_PATH_STYLE || local,
    cacheMiddleware,
    // A body of 2 MB or more waits for "100 Continue" before it is sent: a round trip through the local
    // S3's busy event loop for nothing (it refuses nothing by its headers). In AWS the default stays.
    ...(local ? { expectContinueHeader: false } : {}),
    ...(checksumsWhenRequired
      ? { requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' }
      : {}),
  });
  unsignedPayloads(built, local);
  recordCallsOf(built, 's3');
  return built;
}

/**
 * Bodies go as UNSIGNED-PAYLOAD (the signature still covers everything else) where nothing is lost by
 * it: over HTTPS, as AWS's own SDK for Java signs for S3 (TLS keeps the body intact on its way, and in
 * AWS the SDK's CRC32 checksum, which S3 checks, covers it end to end), and against the local S3 over
 * http on 127.0.0.1 (bytes the runtime produced itself). Otherwise the SDK SHA-256s every part it sends
 * for the signature (5 MB a chunk) and the local S3 would hash it again to check it. Over plain http to
 * anything else the SDK's signed payload stays. A payload hash already set (aws-chunked streaming,
 * which declares its own) is left alone.
 */
function unsignedPayloads(client: S3Client, local: boolean): void {
  client.middlewareStack.add(
    (next) => (args) => {
      const request = args.request as { body?: unknown; headers?: Record<string, string>; protocol?: string };
      const headers = request.headers;
      if (
        request.body != null &&
        headers &&
        headers['x-amz-content-sha256'] === undefined &&
        (local || request.protocol === 'https:')
      )
        headers['x-amz-content-sha256'] = 'UNSIGNED-PAYLOAD';
      return next(args);
    },
    { step: 'build', name: 'unsignedPayload' },
  );
}

/**
 * The client the functions' own S3 calls use (in AWS with the SDK's default checksums). It resolves its
 * middleware stack once per command class (cacheMiddleware), not on every call: up to ~0.7 ms of CPU a call
 * otherwise, several a chunk. Its middleware is all added here, before the first call, as that needs.
 */
export function s3(): S3Client {
  client ??= traced(build(settings().AWS_ENDPOINT_URL_S3 !== undefined, true));
  return client;
}

/**
 * The client that signs presigned URLs: checksums only when required, in AWS as locally. With the
 * SDK's default a presigned PUT carries the CRC32 of an empty body (the body is not known when signing),
 * which S3-compatible stores reject and which a browser's real body would not match.
 */
export function presigningS3(): S3Client {
  // not traced: it only signs URLs and sends nothing
  // getSignedUrl adds its own middleware to each command: no cached stacks here
  presigner ??= build(true, false);
  return presigner;
}

export function bucketName(): string {
  return settings().BUCKET_NAME;
}

export function resetS3(): void {
  client?.destroy();
  presigner?.destroy();
  client = undefined;
  presigner = undefined;
}
