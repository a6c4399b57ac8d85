// The local S3: s3rver (objects on disk) behind a streaming front proxy that verifies presigned-URL
// SigV4 signatures, and s3rver's events turned into AWS-shaped S3 event records for the subscriber.
//
//   client ──> front (public port: auth decision, streams bodies) ──> s3rver (ephemeral port, data dir)
//                                                                        └─ 'event' ─> onObjectCreated
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import {
  close as closeCallback,
  createReadStream,
  fstat as fstatCallback,
  mkdirSync,
  open as openCallback,
  read as readCallback,
  readdirSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { link, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import type { S3Event, S3EventRecord } from 'aws-lambda';
import S3rver, { type FilesystemStore, type S3rverContext, type S3rverEventRecord } from 's3rver';
import { DUMMY_ACCOUNT } from 's3rver/lib/models/account';
import S3Object from 's3rver/lib/models/object';
import { encodeS3EventKey } from '../../functions/domain/s3-keys';
import { logger } from '../../functions/log';
import { writeFileAtomically } from '../journal';
import { startBodyWriter, type BodyWriter } from './body-writer';
import { replaceFile, syncDirectory } from './flush';
import { listen } from '../ports';
import { ReadBufferPool } from './read-buffers';
import {
  linkParts,
  mayBeManifest,
  fileReader,
  partsRoot,
  openPartsReader,
  readManifest,
  readManifestFrom,
  removeOrphanParts,
  removeParts,
  writeManifest,
  type Manifest,
} from './part-objects';

export interface LocalS3Options {
  /** Objects, buckets and their configuration live here and survive a restart. */
  dataDir: string;
  host?: string;
  /** Public port; 0 picks an ephemeral one (read it from `url`). */
  port?: number;
  /** Created on start if missing. */
  buckets: string[];
  /** Region written into event records. Presigned URLs are verified with the region of their credential. */
  region?: string;
  accessKeyId: string;
  secretAccessKey: string;
  /**
   * Called once per created object (Put, Copy, CompleteMultipartUpload) with a one-record S3Event, after
   * the object is complete on disk and without holding up the upload's response, as S3 does. A throw
   * or rejection is logged and dropped, never crashes the server.
   */
  onObjectCreated?: (event: S3Event) => Promise<void> | void;
  /**
   * Deliver only keys (plain, not encoded) starting with this, like a bucket notification's prefix
   * filter; e.g. `uploadsPrefix` from functions/wiring.ts. Without it every created object is delivered.
   */
  prefix?: string | string[];
  /** Origins allowed to PUT/GET from a browser (bucket CORS rules); none: no CORS configuration. */
  corsOrigins?: string[];
  /**
   * Durable events: each ObjectCreated event is written here before the PUT is answered and removed once
   * its delivery settled; delivery starts only with deliverPending(), which also redelivers what an
   * earlier process left undelivered (at least once, as S3 does). Without it events live in memory.
   */
  eventsDir?: string;
  /** fdatasync objects, their metadata and events before answering (default true). */
  fsync?: boolean;
}

export interface LocalS3 {
  /** The endpoint for SDK clients and presigned URLs, e.g. http://127.0.0.1:4569. */
  url: string;
  port: number;
  /** Resolves when every subscriber delivery started so far has settled (tests, orderly shutdown). */
  drain(): Promise<void>;
  /** With eventsDir: delivers the events on disk and, from now on, each new one at once. */
  deliverPending(): number;
  /** Stops both servers, cutting open connections. Deliveries in flight are not awaited: see drain(). */
  close(): Promise<void>;
}

const PRESIGNED_ALGORITHM = 'AWS4-HMAC-SHA256';
/** The x-amz-content-sha256 of a request whose signature does not cover its body. */
const unsignedPayload = 'UNSIGNED-PAYLOAD';
const SHA256_HEX = /^[0-9a-f]{64}$/i;
const MAX_PRESIGNED_TTL_SECONDS = 7 * 24 * 3600;
/** How far in the future X-Amz-Date may lie (clock skew between signer and server). */
const MAX_CLOCK_SKEW_MS = 15 * 60 * 1000;
const HOP_BY_HOP = ['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection', 'expect'];

export async function startLocalS3(options: LocalS3Options): Promise<LocalS3> {
  const host = options.host ?? '127.0.0.1';
  const region = options.region ?? 'us-east-1';
  const keys = { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey };
  await mkdir(options.dataDir, { recursive: true });
  const fsync = options.fsync ?? true;
  // An upload cut off by a crash leaves its temporary file; the object itself was never written.
  await removePartialFiles(options.dataDir);

  // s3rver only knows its own dummy key and answers InvalidAccessKeyId to any other; it checks no V4
  // signature with it, but needs the key to accept response-* overrides (Content-Disposition).
  DUMMY_ACCOUNT.createKeyPair(keys.accessKeyId, keys.secretAccessKey);

  const backend = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory: options.dataDir,
    vhostBuckets: false,
    resetOnClose: false,
    configureBuckets: options.buckets.map((name) => ({
      name,
      configs: options.corsOrigins?.length ? [corsConfiguration(options.corsOrigins)] : [],
    })),
  });
  // The front sets X-Forwarded-For, so event records carry the real client address.
  backend.proxy = true;
  withoutRequestLog(backend);
  const writer = startBodyWriter();
  const pool = new ReadBufferPool();
  patchStore(backend.store, fsync, writer, pool);
  cacheBucketConfigs(backend.store);
  try {
    for (const bucket of await readdir(options.dataDir))
      await removeOrphanParts(backend.store.getBucketPath(bucket), (key) =>
        backend.store.getResourcePath(bucket, key, 'object'),
      );
  } catch (error) {
    await writer.close();
    throw error;
  }

  const deliveries = new Set<Promise<void>>();
  const { eventsDir } = options;
  if (eventsDir) mkdirSync(eventsDir, { recursive: true });
  let delivering = !eventsDir;
  /** Event files being delivered, so deliverPending() never starts one twice. */
  const active = new Set<string>();
  const start = (stored: StoredEvent, file?: string) => {
    if (!options.onObjectCreated) return;
    if (file) active.add(file);
    const delivery = deliver(stored.record, stored.eventName, region, backend.store, options.onObjectCreated)
      .then(() => {
        if (file) rmSync(path.join(eventsDir!, file), { force: true });
      })
      .catch((error: unknown) => logger.error('local S3: could not settle an event', error))
      .finally(() => {
        if (file) active.delete(file);
      });
    deliveries.add(delivery);
    void delivery.finally(() => deliveries.delete(delivery));
  };
  // s3rver emits synchronously before it answers the PUT, so an event written here is on disk before
  // the client hears 200.
  backend.on('event', (raw) => {
    for (const record of raw.Records) {
      const eventName = createdEventName(record.eventName);
      if (!eventName || !options.onObjectCreated) continue;
      if (
        options.prefix !== undefined &&
        ![options.prefix].flat().some((p) => record.s3.object.key.startsWith(p))
      )
        continue;
      const stored: StoredEvent = { eventName, record };
      if (!eventsDir) {
        start(stored);
        continue;
      }
      const file = `${Date.now().toString().padStart(15, '0')}-${randomBytes(6).toString('hex')}.json`;
      writeFileAtomically(path.join(eventsDir, file), JSON.stringify(stored), fsync);
      if (delivering) start(stored, file);
    }
  });

  backend.middleware.unshift(closeUnsentObjects);
  const backendAddress = await backend.run().catch(async (error: unknown) => {
    await writer.close();
    throw error;
  });
  const dispatch = backend.callback();
  const agent = new http.Agent({ keepAlive: true });
  const front = http.createServer((req, res) => handle(req, res, false));
  // With Expect: 100-continue the decision comes before the body: a refused 100 MB upload is never sent.
  front.on('checkContinue', (req, res) => handle(req, res, true));

  function handle(req: http.IncomingMessage, res: http.ServerResponse, expectsContinue: boolean): void {
    const denial = authorize(req, keys, new Date());
    if (denial) {
      sendError(res, denial, corsOrigin(req, options.corsOrigins));
      // Discard an unread body so the connection stays usable; with 100-continue it never comes.
      if (!expectsContinue) req.resume();
      return;
    }
    if (expectsContinue) res.writeContinue();
    // s3rver has no UploadPartCopy: the front does it (the assembly of a results file is one per part).
    if (isUploadPartCopy(req)) {
      req.resume();
      copyPart(req, backend.store, fsync, writer).then(
        (reply) => sendCopyPartReply(res, reply),
        (error: unknown) => {
          logger.error('local S3: UploadPartCopy failed', error);
          sendError(res, { status: 500, code: 'InternalError', message: 'The part could not be copied.' });
        },
      );
      return;
    }
    const bodyDigest = signedBodyDigest(req);
    // A body whose signature covers its SHA-256 is checked on its way through the proxy. A request with
    // no body signed for the empty one (the SDK's GETs, HEADs, DELETEs) has nothing to check: through
    // the proxy, each byte of a download would cross two more sockets on this thread.
    if (bodyDigest !== undefined && !signedForNoBody(req, bodyDigest))
      return forward(req, res, backendAddress.port, agent, bodyDigest);
    // Every other request goes to s3rver's handler in this process, with no second HTTP hop: each
    // byte of an upload, a part or a download would otherwise cross two sockets on the main thread.
    // The 100-continue was answered here already.
    delete req.headers.expect;
    // Replaces, never appends: a client must not choose the address the event records show.
    req.headers['x-forwarded-for'] = req.socket.remoteAddress ?? '127.0.0.1';
    if (req.method === 'GET') pool.recycleOn(res);
    dispatch(req, res);
  }

  let port: number;
  try {
    port = await listen(front, options.port ?? 0, host, 'local S3');
    await writer.ready;
  } catch (error) {
    front.close();
    await Promise.all([backend.close(), writer.close()]);
    throw error;
  }

  return {
    url: `http://${host}:${port}`,
    port,
    async drain() {
      while (deliveries.size) await Promise.allSettled([...deliveries]);
    },
    deliverPending() {
      delivering = true;
      if (!eventsDir) return 0;
      let started = 0;
      // Oldest first: the names start with the time the event was written.
      for (const file of readdirSync(eventsDir).sort()) {
        if (!file.endsWith('.json') || active.has(file)) continue;
        let stored: StoredEvent;
        try {
          stored = JSON.parse(readFileSync(path.join(eventsDir, file), 'utf8')) as StoredEvent;
        } catch (error) {
          logger.error('local S3: unreadable event file skipped', error, { file });
          continue;
        }
        start(stored, file);
        started += 1;
      }
      return started;
    },
    async close() {
      const frontClosed = new Promise<void>((resolve) => front.close(() => resolve()));
      front.closeAllConnections();
      await frontClosed;
      agent.destroy();
      const backendClosed = backend.close();
      backend.httpServer?.closeAllConnections();
      await backendClosed;
      await writer.close();
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// Authorization: the front's one decision per request.

export interface S3ErrorReply {
  status: number;
  code: string;
  message: string;
  detail?: Record<string, string>;
}

/** Undefined: pass the request to s3rver. Otherwise the error to answer with. */
export function authorize(
  req: Pick<http.IncomingMessage, 'method' | 'url' | 'headers'>,
  keys: { accessKeyId: string; secretAccessKey: string },
  now: Date,
): S3ErrorReply | undefined {
  // CORS preflights never carry credentials; s3rver answers them from the bucket's CORS rules.
  if (req.method === 'OPTIONS') return undefined;
  const url = req.url ?? '/';
  const queryStart = url.indexOf('?');
  const rawPath = queryStart < 0 ? url : url.slice(0, queryStart);
  const rawQuery = queryStart < 0 ? '' : url.slice(queryStart + 1);
  let query: [string, string][];
  try {
    query = parseQuery(rawQuery);
  } catch {
    return { status: 400, code: 'InvalidArgument', message: 'The query string is not validly URL-encoded.' };
  }
  if (query.some(([name]) => name === 'X-Amz-Algorithm')) {
    return verifyPresignedV4(
      { method: req.method ?? 'GET', rawPath, query, headers: req.headers },
      keys,
      now,
    );
  }
  // Header-signed requests (the handlers' SDK calls, the CLI, tests) are verified like presigned ones:
  // the S3 port is in every upload URL, so anyone who has one can reach it.
  if (req.headers.authorization !== undefined) {
    return verifyHeaderV4({ method: req.method ?? 'GET', rawPath, query, headers: req.headers }, keys, now);
  }
  // The bucket blocks public access: nothing is readable or writable anonymously, and only Signature
  // Version 4 is accepted (V2 query signatures included, they are refused).
  return { status: 403, code: 'AccessDenied', message: 'Access Denied' };
}

const AUTHORIZATION_PATTERN =
  /^AWS4-HMAC-SHA256 Credential=([^,\s]+),\s*SignedHeaders=([^,\s]+),\s*Signature=([0-9a-f]{64})$/;

/**
 * Verifies an Authorization-header SigV4 signature as S3 does: the canonical request of the request as
 * received, with the payload hash the client declared in x-amz-content-sha256; when that is a hex
 * digest, the body must hash to it too (checked while it streams through: digestCheck).
 */
function verifyHeaderV4(
  request: PresignedRequest,
  keys: { accessKeyId: string; secretAccessKey: string },
  now: Date,
): S3ErrorReply | undefined {
  const accessDenied = (message: string): S3ErrorReply => ({ status: 403, code: 'AccessDenied', message });
  const authorization = String(request.headers.authorization ?? '');
  const match = AUTHORIZATION_PATTERN.exec(authorization);
  if (!match) {
    return accessDenied(
      'Only AWS Signature Version 4 (AWS4-HMAC-SHA256 Credential=..., SignedHeaders=..., Signature=...) is accepted.',
    );
  }
  const [, credential, signedHeaders, signature] = match as unknown as [string, string, string, string];
  const parsed = credentialScope(credential);
  if (!parsed) {
    return {
      status: 400,
      code: 'AuthorizationHeaderMalformed',
      message: 'The authorization header is malformed; the Credential is mal-formed.',
    };
  }
  const { accessKeyId, scopeDate, scopeRegion } = parsed;
  const foreign = foreignKey(accessKeyId, keys);
  if (foreign) return foreign;
  const amzDate = String(request.headers['x-amz-date'] ?? '');
  const signedAt = parseAmzDate(amzDate);
  if (signedAt === undefined || scopeDate !== amzDate.slice(0, 8)) {
    return accessDenied(
      'AWS authentication requires a valid x-amz-date header matching the credential date.',
    );
  }
  if (Math.abs(now.getTime() - signedAt) > MAX_CLOCK_SKEW_MS) {
    return {
      status: 403,
      code: 'RequestTimeTooSkewed',
      message: 'The difference between the request time and the current time is too large.',
    };
  }
  const payloadHash = request.headers['x-amz-content-sha256'];
  if (typeof payloadHash !== 'string' || payloadHash === '') {
    return {
      status: 400,
      code: 'InvalidRequest',
      message: 'Missing required header for this request: x-amz-content-sha256',
    };
  }
  const headerNames = signedHeaders.split(';');
  if (!headerNames.includes('host') || !headerNames.includes('x-amz-content-sha256')) {
    return accessDenied('The signature must cover the host and x-amz-content-sha256 headers.');
  }
  const scope = { amzDate, scopeDate, scopeRegion, accessKeyId, signature };
  // Only a genuine signature learns what is wrong with its payload hash; a hex digest is then checked
  // against the body as it arrives (forward).
  return (
    verifySignedRequest(request, signedHeaders, payloadHash, scope, keys) ?? payloadHashRefusal(payloadHash)
  );
}

/**
 * The part both kinds of SigV4 share once their own parameters are checked: no x-amz-* header outside the
 * signature (x-amz-copy-source would turn an upload into a copy of someone else's object: S3 refuses it,
 * and so do we), then the canonical request of the request as received (URI-encoded path, sorted query
 * without X-Amz-Signature, the signed headers with the values this request carries, the payload hash)
 * signed with the configured secret for the credential's date and region.
 */
function verifySignedRequest(
  request: PresignedRequest,
  signedHeaders: string,
  payloadHash: string,
  scope: SignatureScope,
  keys: { secretAccessKey: string },
): S3ErrorReply | undefined {
  const headerNames = signedHeaders.split(';');
  const unsigned = Object.keys(request.headers).filter(
    (h) => h.startsWith('x-amz-') && !headerNames.includes(h),
  );
  if (unsigned.length) {
    return {
      status: 403,
      code: 'AccessDenied',
      message: 'There were headers present in the request which were not signed',
      detail: { HeadersNotSigned: unsigned.join(', ') },
    };
  }
  let canonicalPath: string;
  try {
    canonicalPath = canonicalUri(request.rawPath);
  } catch {
    return { status: 400, code: 'InvalidURI', message: "Couldn't parse the specified URI." };
  }
  const canonicalRequest = [
    request.method,
    canonicalPath,
    canonicalQuery(request.query),
    headerNames.map((name) => `${name}:${canonicalHeaderValue(request.headers[name])}`).join('\n'),
    '',
    signedHeaders,
    payloadHash,
  ].join('\n');
  return checkSignature(canonicalRequest, scope, keys);
}

interface SignatureScope {
  amzDate: string;
  scopeDate: string;
  scopeRegion: string;
  accessKeyId: string;
  signature: string;
}

/**
 * What x-amz-content-sha256 may say, as S3 defines it: the SHA-256 of the body in hex (checked against
 * the body as it arrives: signedBodyDigest), UNSIGNED-PAYLOAD (the signature leaves the body out), or
 * one of the STREAMING-* values of an aws-chunked body with per-chunk signatures. S3 accepts those; this
 * local S3 refuses them with 501 rather than store the chunk framing as the object (s3rver cannot decode
 * it) or pass chunks whose signatures it does not check. The SDK sends none of them with
 * requestChecksumCalculation WHEN_REQUIRED, as the runtime's clients are configured.
 */
function payloadHashRefusal(payloadHash: string): S3ErrorReply | undefined {
  if (payloadHash === unsignedPayload || SHA256_HEX.test(payloadHash)) return undefined;
  if (payloadHash.startsWith('STREAMING-')) {
    return {
      status: 501,
      code: 'NotImplemented',
      message:
        'The local S3 does not accept aws-chunked (STREAMING-*) payloads; sign the whole body or send UNSIGNED-PAYLOAD (AWS SDK v3: requestChecksumCalculation WHEN_REQUIRED).',
      detail: { Header: 'x-amz-content-sha256' },
    };
  }
  return {
    status: 400,
    code: 'InvalidArgument',
    message:
      'x-amz-content-sha256 must be UNSIGNED-PAYLOAD, STREAMING-AWS4-HMAC-SHA256-PAYLOAD, or a valid sha256 value.',
    detail: { ArgumentName: 'x-amz-content-sha256', ArgumentValue: payloadHash },
  };
}

/**
 * The body digest an authorized request committed to: only a header-signed request whose
 * x-amz-content-sha256 is a hex SHA-256 (a presigned URL is UNSIGNED-PAYLOAD by definition).
 */
function signedBodyDigest(req: http.IncomingMessage): string | undefined {
  const declared = req.headers['x-amz-content-sha256'];
  if (req.headers.authorization === undefined || typeof declared !== 'string') return undefined;
  return SHA256_HEX.test(declared) ? declared.toLowerCase() : undefined;
}

/** SHA-256 of no bytes: the payload hash of a request without a body. */
const EMPTY_BODY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

/** The request has no body (neither a length nor chunked framing) and its signature says so. */
function signedForNoBody(req: http.IncomingMessage, bodyDigest: string): boolean {
  const length = req.headers['content-length'];
  return (
    bodyDigest === EMPTY_BODY_SHA256 &&
    req.headers['transfer-encoding'] === undefined &&
    (length === undefined || length === '0')
  );
}

/** The body did not hash to the digest its signature covers. */
class PayloadDigestMismatch extends Error {
  constructor(
    readonly declared: string,
    readonly computed: string,
  ) {
    super('x-amz-content-sha256 does not match the body');
  }
}

/**
 * Passes a body through while hashing it, holding back its last piece until the end: when the digest
 * does not match, the stream fails before the backend has the whole body, so s3rver sees an aborted
 * request and stores nothing (as S3 stores nothing after a XAmzContentSHA256Mismatch).
 */
function digestCheck(expected: string): Transform {
  const hash = createHash('sha256');
  let held: Buffer | undefined;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      hash.update(chunk);
      const previous = held;
      held = chunk;
      callback(null, previous);
    },
    flush(callback) {
      const computed = hash.digest('hex');
      if (computed !== expected) return callback(new PayloadDigestMismatch(expected, computed));
      callback(null, held);
    },
  });
}

/** Compares a signature with the one the configured secret gives for the canonical request. */
function checkSignature(
  canonicalRequest: string,
  scope: SignatureScope,
  keys: { secretAccessKey: string },
): S3ErrorReply | undefined {
  const stringToSign = [
    PRESIGNED_ALGORITHM,
    scope.amzDate,
    `${scope.scopeDate}/${scope.scopeRegion}/s3/aws4_request`,
    createHash('sha256').update(canonicalRequest, 'utf8').digest('hex'),
  ].join('\n');
  let signingKey: Buffer = hmac(`AWS4${keys.secretAccessKey}`, scope.scopeDate);
  for (const part of [scope.scopeRegion, 's3', 'aws4_request']) signingKey = hmac(signingKey, part);
  const expected = createHmac('sha256', signingKey).update(stringToSign, 'utf8').digest('hex');
  if (constantTimeEquals(expected, scope.signature)) return undefined;
  return {
    status: 403,
    code: 'SignatureDoesNotMatch',
    message:
      'The request signature we calculated does not match the signature you provided. ' +
      'Check your key and signing method.',
    detail: {
      AWSAccessKeyId: scope.accessKeyId,
      StringToSign: stringToSign,
      SignatureProvided: scope.signature,
      CanonicalRequest: canonicalRequest,
    },
  };
}

interface PresignedRequest {
  method: string;
  rawPath: string;
  /** Decoded name/value pairs in wire order. */
  query: [string, string][];
  headers: http.IncomingHttpHeaders;
}

/**
 * Verifies query-string SigV4 the way S3 does for presigned URLs: the canonical request of the request as
 * received (URI-encoded path, sorted canonical query without X-Amz-Signature, the signed headers with the
 * values this request carries, UNSIGNED-PAYLOAD), signed with the configured secret for the credential's
 * date and region. Agrees with @smithy/signature-v4's presign byte for byte.
 */
function verifyPresignedV4(
  request: PresignedRequest,
  keys: { accessKeyId: string; secretAccessKey: string },
  now: Date,
): S3ErrorReply | undefined {
  const param = (name: string): string | undefined => request.query.find(([n]) => n === name)?.[1];
  const authError = (message: string): S3ErrorReply => ({
    status: 400,
    code: 'AuthorizationQueryParametersError',
    message,
  });

  const algorithm = param('X-Amz-Algorithm');
  const credential = param('X-Amz-Credential');
  const amzDate = param('X-Amz-Date');
  const expires = param('X-Amz-Expires');
  const signedHeaders = param('X-Amz-SignedHeaders');
  const signature = param('X-Amz-Signature');
  if (algorithm !== PRESIGNED_ALGORITHM) return authError('X-Amz-Algorithm only supports "AWS4-HMAC-SHA256"');
  if (!credential || !amzDate || !expires || !signedHeaders || !signature) {
    return authError(
      'Query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential, ' +
        'X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters.',
    );
  }

  const parsed = credentialScope(credential);
  if (!parsed) {
    return authError(
      `Error parsing the X-Amz-Credential parameter; the Credential is mal-formed; expecting "<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/aws4_request".`,
    );
  }
  const { accessKeyId, scopeDate, scopeRegion } = parsed;
  const foreign = foreignKey(accessKeyId, keys);
  if (foreign) return foreign;
  const signedAt = parseAmzDate(amzDate);
  if (signedAt === undefined) {
    return authError(`X-Amz-Date must be in the ISO8601 Long Format "yyyyMMdd'T'HHmmss'Z'"`);
  }
  if (scopeDate !== amzDate.slice(0, 8)) {
    return authError('Invalid credential date. Date is not the same as X-Amz-Date.');
  }
  if (!/^\d+$/.test(expires)) return authError('X-Amz-Expires should be a number');
  const ttlSeconds = Number(expires);
  if (ttlSeconds > MAX_PRESIGNED_TTL_SECONDS) {
    return authError(
      'X-Amz-Expires must be less than a week (in seconds); that is, the given X-Amz-Expires must be ' +
        'less than 604800 seconds',
    );
  }
  const expiresAt = signedAt + ttlSeconds * 1000;
  if (now.getTime() > expiresAt) {
    return {
      status: 403,
      code: 'AccessDenied',
      message: 'Request has expired',
      detail: { 'X-Amz-Expires': expires, Expires: iso(expiresAt), ServerTime: iso(now.getTime()) },
    };
  }
  if (signedAt - now.getTime() > MAX_CLOCK_SKEW_MS) {
    return { status: 403, code: 'AccessDenied', message: 'Request is not valid yet' };
  }

  if (!signedHeaders.split(';').includes('host')) return authError('X-Amz-SignedHeaders must include host');
  // A presigned URL never covers the body: S3 signs it with UNSIGNED-PAYLOAD.
  const scope = { amzDate, scopeDate, scopeRegion, accessKeyId, signature };
  return verifySignedRequest(request, signedHeaders, unsignedPayload, scope, keys);
}

/** Query pairs decoded; a name without `=` has the empty value, as S3 (and the signer) treat it. */
function parseQuery(rawQuery: string): [string, string][] {
  return rawQuery
    .split('&')
    .filter((part) => part.length > 0)
    .map((part) => {
      const eq = part.indexOf('=');
      const name = eq < 0 ? part : part.slice(0, eq);
      const value = eq < 0 ? '' : part.slice(eq + 1);
      return [decodeURIComponent(name), decodeURIComponent(value)];
    });
}

/** RFC 3986 encoding as the SDK's escapeUri: encodeURIComponent plus !'()*. */
function uriEscape(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/**
 * S3 signs the path each segment URI-encoded once (the S3 signer does not double-encode). Decoding and
 * re-encoding the received path makes a client's equivalent spelling (`~` vs `%7E`) agree, while any
 * change to the key changes the signature.
 */
function canonicalUri(rawPath: string): string {
  return rawPath
    .split('/')
    .map((segment) => uriEscape(decodeURIComponent(segment)))
    .join('/');
}

function canonicalQuery(query: [string, string][]): string {
  return query
    .filter(([name]) => name !== 'X-Amz-Signature')
    .map(([name, value]) => [uriEscape(name), uriEscape(value)] as const)
    .sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
}

function canonicalHeaderValue(value: string | string[] | undefined): string {
  const joined = Array.isArray(value) ? value.join(',') : (value ?? '');
  return joined
    .replace(/[\r\n]/g, ' ')
    .replace(/[ \t]+/g, ' ')
    .replace(/^ | $/g, '');
}

function parseAmzDate(value: string): number | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s] = m.map(Number) as [number, number, number, number, number, number, number];
  const time = Date.UTC(y, mo - 1, d, h, mi, s);
  return Number.isNaN(time) ? undefined : time;
}

/** The parts of a SigV4 credential `<key id>/<YYYYMMDD>/<region>/s3/aws4_request`; undefined when malformed. */
function credentialScope(
  credential: string,
): { accessKeyId: string; scopeDate: string; scopeRegion: string } | undefined {
  const [accessKeyId, scopeDate, scopeRegion, scopeService, terminator, ...extra] = credential.split('/');
  if (!accessKeyId || !scopeDate || !scopeRegion) return undefined;
  if (scopeService !== 's3' || terminator !== 'aws4_request' || extra.length) return undefined;
  return { accessKeyId, scopeDate, scopeRegion };
}

/** 403 InvalidAccessKeyId unless the key id is the runtime's own. */
function foreignKey(accessKeyId: string, keys: { accessKeyId: string }): S3ErrorReply | undefined {
  if (accessKeyId === keys.accessKeyId) return undefined;
  return {
    status: 403,
    code: 'InvalidAccessKeyId',
    message: 'The AWS Access Key Id you provided does not exist in our records.',
    detail: { AWSAccessKeyId: accessKeyId },
  };
}

function hmac(key: string | Buffer, data: string): Buffer {
  return createHmac('sha256', key).update(data, 'utf8').digest();
}

function constantTimeEquals(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}

function iso(time: number): string {
  return new Date(time).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

// ---------------------------------------------------------------------------------------------------
// The proxy: streams both ways, never buffers a body (uploads reach 100 MB).

export function forward(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  backendPort: number,
  agent: http.Agent,
  bodyDigest?: string,
): void {
  const headers: http.OutgoingHttpHeaders = { ...req.headers };
  for (const name of HOP_BY_HOP) delete headers[name];
  // Replaces, never appends: a client must not choose the address the event records show.
  headers['x-forwarded-for'] = req.socket.remoteAddress ?? '127.0.0.1';
  const upstream = http.request({
    host: '127.0.0.1',
    port: backendPort,
    method: req.method,
    path: req.url,
    headers,
    agent,
  });
  upstream.on('response', (upstreamRes) => {
    const out: http.OutgoingHttpHeaders = { ...upstreamRes.headers };
    for (const name of HOP_BY_HOP) delete out[name];
    res.writeHead(upstreamRes.statusCode ?? 502, out);
    // A client that goes away mid-download tears the upstream response down with it.
    pipeline(upstreamRes, res).catch(() => undefined);
  });
  /** Every way the exchange with s3rver can fail ends here, once: the client always gets an answer. */
  const fail = (error: unknown) => {
    // Once the response has started, its own pipeline decides how it ends.
    if (res.headersSent) return;
    if (error instanceof PayloadDigestMismatch) {
      return sendError(res, {
        status: 400,
        code: 'XAmzContentSHA256Mismatch',
        message: "The provided 'x-amz-content-sha256' header does not match what was computed.",
        detail: { ClientComputedContentSHA256: error.declared, S3ComputedContentSHA256: error.computed },
      });
    }
    // s3rver is unreachable, dropped a kept-alive connection just as it was reused, or the client left
    // (then nobody reads this answer). A 503 is retried by the SDK.
    logger.debug('local S3: request to s3rver failed', { method: req.method, error: String(error) });
    sendError(res, {
      status: 503,
      code: 'ServiceUnavailable',
      message: 'The local S3 backend did not answer.',
    });
  };
  // A failure after the request was sent (the body pipeline has already resolved, and its dangling
  // listeners would swallow the error) must still answer the client, or its request hangs forever.
  upstream.on('error', fail);
  // A client that goes away mid-upload aborts the upstream request; s3rver then stores nothing.
  const body =
    bodyDigest === undefined ? pipeline(req, upstream) : pipeline(req, digestCheck(bodyDigest), upstream);
  body.catch(fail);
}

function sendError(res: http.ServerResponse, error: S3ErrorReply, allowOrigin?: string): void {
  const requestId = randomBytes(8).toString('hex').toUpperCase();
  const fields = { Code: error.code, Message: error.message, ...error.detail, RequestId: requestId };
  const body =
    '<?xml version="1.0" encoding="UTF-8"?>\n<Error>' +
    Object.entries(fields)
      .map(([name, value]) => `<${name}>${escapeXml(value)}</${name}>`)
      .join('') +
    '</Error>';
  res.writeHead(error.status, {
    'content-type': 'application/xml',
    'content-length': Buffer.byteLength(body),
    'x-amz-request-id': requestId,
    ...(allowOrigin ? { 'access-control-allow-origin': allowOrigin, vary: 'Origin' } : {}),
  });
  res.end(body);
}

function escapeXml(value: string): string {
  return value.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A browser must be able to read a 403 body too, when its origin is allowed. */
function corsOrigin(req: http.IncomingMessage, origins: string[] | undefined): string | undefined {
  const origin = req.headers.origin;
  if (!origin || !origins?.length) return undefined;
  return origins.includes('*') ? '*' : origins.includes(origin) ? origin : undefined;
}

function corsConfiguration(origins: string[]): string {
  const rule =
    origins.map((o) => `<AllowedOrigin>${escapeXml(o)}</AllowedOrigin>`).join('') +
    ['GET', 'PUT', 'HEAD'].map((m) => `<AllowedMethod>${m}</AllowedMethod>`).join('') +
    '<AllowedHeader>*</AllowedHeader><ExposeHeader>ETag</ExposeHeader><MaxAgeSeconds>3000</MaxAgeSeconds>';
  return `<CORSConfiguration><CORSRule>${rule}</CORSRule></CORSConfiguration>`;
}

// ---------------------------------------------------------------------------------------------------
// UploadPartCopy: a part of a multipart upload taken from an object already stored. The part file is a
// hard link to the source's file (objects are replaced by rename, never rewritten in place, so the
// link keeps the bytes the copy saw) and its ETag is the source's stored MD5: no byte is read, copied
// or hashed again. A source that is itself a multipart object (its ETag is no MD5) is hashed once.

/** A PUT of a part (`?partNumber=&uploadId=`) with x-amz-copy-source. */
function isUploadPartCopy(req: http.IncomingMessage): boolean {
  if (req.method !== 'PUT' || req.headers['x-amz-copy-source'] === undefined) return false;
  const query = new URLSearchParams((req.url ?? '').split('?')[1] ?? '');
  return query.has('uploadId') && query.has('partNumber');
}

type CopyPartReply = S3ErrorReply | { etag: string; lastModified: Date };

/** Copy options this local S3 does not implement: refused, never ignored. */
const unsupportedCopyHeaders = [
  'x-amz-copy-source-range',
  'x-amz-copy-source-if-match',
  'x-amz-copy-source-if-none-match',
  'x-amz-copy-source-if-modified-since',
  'x-amz-copy-source-if-unmodified-since',
];

async function copyPart(
  req: http.IncomingMessage,
  store: FilesystemStore,
  fsync: boolean,
  writer: BodyWriter,
): Promise<CopyPartReply> {
  const url = new URL(req.url ?? '/', 'http://local');
  const [bucket, ...keyPath] = url.pathname.slice(1).split('/').map(decodeURIComponent);
  const key = keyPath.join('/');
  const uploadId = url.searchParams.get('uploadId') ?? '';
  const partNumber = Number(url.searchParams.get('partNumber'));
  const unsupported = unsupportedCopyHeaders.find((name) => req.headers[name] !== undefined);
  if (unsupported)
    return {
      status: 501,
      code: 'NotImplemented',
      message: `The local S3 does not implement ${unsupported}.`,
    };
  if (!Number.isInteger(partNumber) || partNumber < 1 || partNumber > 10_000)
    return {
      status: 400,
      code: 'InvalidArgument',
      message: 'Part number must be an integer between 1 and 10000, inclusive',
    };
  const source = parseCopySource(String(req.headers['x-amz-copy-source']));
  if (!source)
    return {
      status: 400,
      code: 'InvalidArgument',
      message: 'Copy Source must mention the source bucket and key',
    };
  if (source.versionId !== undefined && source.versionId !== 'null')
    return { status: 501, code: 'NotImplemented', message: 'The local S3 keeps no object versions.' };
  const uploadDir = path.join(store.getResourcePath(bucket!, undefined, 'uploads'), uploadId);
  const uploadKey = await readFile(path.join(uploadDir, 'key'), 'utf8').catch(() => undefined);
  if (!uploadId || uploadKey !== key)
    return {
      status: 404,
      code: 'NoSuchUpload',
      message:
        'The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.',
      detail: { UploadId: uploadId },
    };
  const sourcePath = store.getResourcePath(source.bucket, source.key, 'object');
  const partPath = path.join(uploadDir, String(partNumber));
  const manifest = await readManifest(sourcePath).catch(() => undefined);
  if (manifest) {
    // A multipart object kept as its parts: its bytes are written out as this part.
    const content = await openPartsReader(
      store.getBucketPath(source.bucket),
      manifest,
      0,
      manifest.bytes - 1,
    ).catch(() => undefined);
    if (!content)
      return {
        status: 404,
        code: 'NoSuchKey',
        message: 'The specified key does not exist.',
        detail: { Key: source.key },
      };
    const { md5 } = await writeAtomically(writer, partPath, content, fsync);
    await writeFile(`${partPath}.md5`, md5);
    if (fsync) await syncDirectory(uploadDir);
    return { etag: md5, lastModified: (await stat(partPath)).mtime };
  }
  // The MD5 is read before the link: an object replaced meanwhile shows as a file newer than its MD5.
  const md5File = await stat(`${sourcePath}.md5`).catch(() => undefined);
  const storedMd5 =
    md5File &&
    (await readFile(`${sourcePath}.md5`, 'utf8').then(
      (text) => parseTagged(text).md5,
      () => undefined,
    ));
  const temporary = `${partPath}.${randomBytes(6).toString('hex')}.partial`;
  try {
    await link(sourcePath, temporary);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      return {
        status: 404,
        code: 'NoSuchKey',
        message: 'The specified key does not exist.',
        detail: { Key: source.key },
      };
    throw error;
  }
  try {
    const linked = await stat(temporary);
    const md5 =
      storedMd5 && /^[0-9a-f]{32}$/.test(storedMd5.trim()) && md5File!.mtimeMs >= linked.mtimeMs
        ? storedMd5.trim()
        : await fileMd5(temporary);
    await rename(temporary, partPath);
    await writeFile(`${partPath}.md5`, md5);
    if (fsync) await syncDirectory(uploadDir);
    return { etag: md5, lastModified: linked.mtime };
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/** `bucket/key` or `/bucket/key`, URL-encoded, optionally `?versionId=`. */
function parseCopySource(header: string): { bucket: string; key: string; versionId?: string } | undefined {
  const [pathPart = '', query] = header.split('?');
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathPart.replace(/^\//, ''));
  } catch {
    return undefined;
  }
  const [bucket, ...keyPath] = decoded.split('/');
  const key = keyPath.join('/');
  if (!bucket || !key) return undefined;
  const versionId = query === undefined ? undefined : new URLSearchParams(query).get('versionId');
  return { bucket, key, ...(versionId ? { versionId } : {}) };
}

async function fileMd5(file: string): Promise<string> {
  const hash = createHash('md5');
  await pipeline(createReadStream(file, { highWaterMark: 1024 * 1024 }), hash);
  return hash.digest('hex');
}

function sendCopyPartReply(res: http.ServerResponse, reply: CopyPartReply): void {
  if ('status' in reply) return sendError(res, reply);
  const body =
    '<?xml version="1.0" encoding="UTF-8"?>\n<CopyPartResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">' +
    `<LastModified>${reply.lastModified.toISOString()}</LastModified><ETag>&quot;${reply.etag}&quot;</ETag>` +
    '</CopyPartResult>';
  res.writeHead(200, {
    'content-type': 'application/xml',
    'content-length': Buffer.byteLength(body),
    'x-amz-request-id': randomBytes(8).toString('hex').toUpperCase(),
  });
  res.end(body);
}

// ---------------------------------------------------------------------------------------------------
// Events: s3rver's records to AWS's.

type CreatedEventName = 'ObjectCreated:Put' | 'ObjectCreated:Copy' | 'ObjectCreated:CompleteMultipartUpload';

/** An event as kept in eventsDir until its delivery settled. */
interface StoredEvent {
  eventName: CreatedEventName;
  record: S3rverEventRecord;
}

function createdEventName(s3rverName: string): CreatedEventName | undefined {
  switch (s3rverName) {
    case 'ObjectCreated:Put':
      return 'ObjectCreated:Put';
    case 'ObjectCreated:Copy':
      return 'ObjectCreated:Copy';
    // s3rver names both browser form POSTs and multipart completion `Post`. The front refuses form
    // POSTs (they carry no Authorization header nor query signature), so `Post` is always a completion.
    case 'ObjectCreated:Post':
      return 'ObjectCreated:CompleteMultipartUpload';
    default:
      return undefined;
  }
}

let lastSequencer = 0n;
/** Increasing per process, like S3's per-key sequencer, so consumers can order events on one key. */
function nextSequencer(): string {
  let value = BigInt(Date.now()) << 16n;
  if (value <= lastSequencer) value = lastSequencer + 1n;
  lastSequencer = value;
  return value.toString(16).toUpperCase().padStart(16, '0');
}

async function deliver(
  record: S3rverEventRecord,
  eventName: CreatedEventName,
  region: string,
  store: FilesystemStore,
  subscriber: (event: S3Event) => Promise<void> | void,
): Promise<void> {
  const bucket = record.s3.bucket.name;
  const key = record.s3.object.key;
  try {
    let { size, eTag } = record.s3.object;
    if (size === undefined || eTag === undefined) {
      // s3rver leaves the ETag out of Copy records; the stored metadata has it.
      const metadata = await store.getMetadata(bucket, key);
      size ??= Number(metadata['content-length']);
      eTag ??= String(JSON.parse(metadata.etag ?? '""'));
    }
    const awsRecord: S3EventRecord = {
      eventVersion: '2.1',
      eventSource: 'aws:s3',
      awsRegion: region,
      eventTime: record.eventTime,
      eventName,
      userIdentity: record.userIdentity,
      requestParameters: record.requestParameters,
      responseElements: record.responseElements,
      s3: {
        s3SchemaVersion: '1.0',
        configurationId: 'mailvet-local',
        bucket: {
          name: bucket,
          ownerIdentity: record.s3.bucket.ownerIdentity,
          arn: `arn:aws:s3:::${bucket}`,
        },
        // s3rver has no versioning, so no versionId.
        object: { key: encodeS3EventKey(key), size, eTag, sequencer: nextSequencer() },
      },
    };
    await subscriber({ Records: [awsRecord] });
  } catch (error) {
    logger.error('local S3: ObjectCreated delivery failed', error, { bucket, key, eventName });
  }
}

// ---------------------------------------------------------------------------------------------------
// s3rver 3.7.1's store resolves a write when its hashing stream finishes, before the file stream has
// flushed (a GET or the event subscriber right after a PUT can read a short file), and on an aborted
// upload it hangs and leaves a partial object. These replacements write to a temporary file, wait for
// it to be flushed, and rename it into place only when the whole body arrived.

function patchStore(store: FilesystemStore, fsync: boolean, writer: BodyWriter, pool: ReadBufferPool): void {
  const objectPath = (bucket: string, key: string) => store.getResourcePath(bucket, key, 'object');
  /** The manifest of a multipart object kept as its parts (part-objects.ts), if the key is one. */
  const manifestAt = (file: string) => readManifest(file).catch(() => undefined);
  // s3rver's, written aside and renamed into place (a read never sees half a file), each tagged with
  // the identity of the object file it describes (objectIdentity): a read pairs a file only with its own.
  store.putMetadata = async (bucket, key, metadata, md5, identity) => {
    const json = Object.fromEntries(
      Object.entries(metadata).filter(
        ([name]) => S3Object.ALLOWED_METADATA.includes(name) || name.startsWith('x-amz-meta-'),
      ),
    );
    const metadataPath = store.getResourcePath(bucket, key, 'metadata.json');
    if (md5)
      await replaceFile(store.getResourcePath(bucket, key, 'object.md5'), tagged(md5, identity), fsync);
    await replaceFile(
      metadataPath,
      JSON.stringify(identity === undefined ? json : { ...json, [IDENTITY_FIELD]: identity }, null, 2),
      fsync,
    );
    if (fsync) await syncDirectory(path.dirname(metadataPath));
  };
  store.getMetadata = async (bucket, key) => {
    const version = await openVersion(bucket, key);
    if (!version) throw Object.assign(new Error(`no object ${bucket}/${key}`), { code: 'ENOENT' });
    await closeFd(version.fd);
    return version.metadata;
  };
  /**
   * The object as one version: its file opened once, the size and modification time from that
   * descriptor, the ETag and metadata from the sidecars tagged with that file's identity. A PUT renames
   * the new file into place before it writes the new sidecars: a read in between sees the sidecars of
   * another version, waits a moment and opens the object again. Undefined when there is no object.
   */
  /** Object files whose metadata names another file even after the waits: served with it as it is. */
  const staleMetadata = new Map<string, string>();
  const rememberStale = (file: string, identity: string) => {
    if (staleMetadata.size >= 10_000) staleMetadata.clear();
    staleMetadata.set(file, identity);
  };
  const openVersion = async (
    bucket: string,
    key: string,
  ): Promise<
    { fd: number; bytes: number; identity: string; metadata: Metadata; manifest?: Manifest } | undefined
  > => {
    const file = objectPath(bucket, key);
    for (let attempt = 0; ; attempt++) {
      let fd: number;
      try {
        fd = await openFile(file, 'r');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
      try {
        const stats = await fstatFd(fd);
        const identity = objectIdentity(stats);
        const [stored, md5Text] = await Promise.all([
          readFile(store.getResourcePath(bucket, key, 'metadata.json'), 'utf8').then(
            parseMetadata,
            ignoreMissing,
          ),
          readFile(`${file}.md5`, 'utf8').then((text) => text, ignoreMissing),
        ]);
        const md5 = md5Text === undefined ? undefined : parseTagged(md5Text);
        // Untagged sidecars are s3rver's or an older runtime's: they describe the file they sit beside.
        const own = (tag: string | undefined) => tag === undefined || tag === identity;
        const md5Matches = md5 !== undefined && md5.md5 !== '' && own(md5.identity);
        const metadataMatches =
          staleMetadata.get(file) === identity || (stored !== undefined && own(stored.identity));
        // Another version's sidecars, or none yet (a PUT between its rename and its metadata): the
        // PUT writes them in a moment.
        if ((!metadataMatches || (!md5Matches && md5Text !== undefined)) && attempt < VERSION_ATTEMPTS) {
          await closeFd(fd);
          await pause(2 ** attempt);
          continue;
        }
        // Still not this file's (a crash between a PUT's rename and its metadata): the metadata there is
        // served with it, from now on without waiting; the ETag is never another file's.
        if (!metadataMatches) rememberStale(file, identity);
        // A manifest holds its own size and ETag; any other file's ETag is its tagged MD5, else its bytes'.
        const manifest =
          !md5Matches || mayBeManifest(md5?.md5) ? await readManifestFrom(fd, stats.size) : undefined;
        let etag = manifest?.etag ?? (md5Matches ? md5!.md5 : undefined);
        if (etag === undefined) {
          // An object s3rver wrote without its MD5, or one whose MD5 is still another file's: computed
          // once and kept, as s3rver does.
          etag = await fdMd5(fd, stats.size);
          await replaceFile(`${file}.md5`, tagged(etag, identity), false);
        }
        const metadata: Metadata = {
          ...stored?.metadata,
          etag: JSON.stringify(etag),
          'last-modified': stats.mtime.toUTCString(),
          'content-length': String(manifest?.bytes ?? stats.size),
        };
        return { fd, bytes: stats.size, identity, metadata, ...(manifest ? { manifest } : {}) };
      } catch (error) {
        await closeFd(fd);
        throw error;
      }
    }
  };
  store.putObject = async (object) => {
    const file = objectPath(object.bucket, object.key);
    const content = Buffer.isBuffer(object.content) ? Readable.from([object.content]) : object.content;
    if (!content) throw new Error(`No content for ${object.bucket}/${object.key}`);
    const previous = await manifestAt(file);
    const { size, md5, identity } = await writeAtomically(writer, file, content, fsync);
    await store.putMetadata(object.bucket, object.key, object.metadata, md5, identity);
    await removeParts(store.getBucketPath(object.bucket), previous);
    return { size, md5 };
  };
  store.putPart = async (bucket, uploadId, partNumber, content) => {
    const partPath = path.join(
      store.getResourcePath(bucket, undefined, 'uploads'),
      uploadId,
      String(partNumber),
    );
    const { size, md5 } = await writeAtomically(writer, partPath, content, fsync);
    await writeFile(`${partPath}.md5`, md5);
    return { size, md5 };
  };
  // s3rver's reads go in 64 KiB pieces: every download, chunk read and scan of an upload would be a
  // read and a socket write per 64 KiB on the main thread. The same read, in 1 MiB pieces, into the
  // pool's buffers (read-buffers.ts), from the one descriptor the version was described from.
  store.getObject = async (bucket, key, options) => {
    // A multipart object replaced between its manifest's read and its parts' opening: read it again.
    for (let attempt = 1; ; attempt++) {
      const version = await openVersion(bucket, key);
      if (!version) return null;
      const { fd, metadata, manifest } = version;
      const lastByte = Math.max(0, Number(metadata['content-length']) - 1);
      const ranged = options !== undefined && (options.start !== undefined || options.end !== undefined);
      const range = { start: options?.start ?? 0, end: Math.min(options?.end ?? Infinity, lastByte) };
      let content: Readable | null = null;
      // an unsatisfiable range gets no content (s3rver answers InvalidRange)
      if (range.start >= 0 && range.end >= range.start) {
        if (!manifest) content = fileReader(fd, version.bytes, range.start, range.end, pool);
        else {
          await closeFd(fd);
          try {
            content = await openPartsReader(
              store.getBucketPath(bucket),
              manifest,
              range.start,
              range.end,
              pool,
            );
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code === 'ENOENT' && attempt < 3) continue;
            if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
            throw error;
          }
        }
      } else await closeFd(fd);
      const object = new S3Object(bucket, key, content, metadata);
      if (ranged) object.range = range;
      return object;
    }
  };
  // s3rver's CopyObject writes the target's file in place: a GET meanwhile could read a short file, and
  // a part linked to that file by UploadPartCopy would change under its upload. Written aside and
  // renamed into place instead, like every other object. A multipart source is copied as its parts,
  // linked again, with its ETag (the copy is the same multipart object).
  store.copyObject = async (srcBucket, srcKey, destBucket, destKey, replacementMetadata) => {
    const from = objectPath(srcBucket, srcKey);
    const to = objectPath(destBucket, destKey);
    const [md5, metadata, source] = await Promise.all([
      readFile(`${from}.md5`, 'utf8').then(
        (text) => parseTagged(text).md5,
        () => '',
      ),
      replacementMetadata ??
        readFile(store.getResourcePath(srcBucket, srcKey, 'metadata.json'), 'utf8').then(
          (text) => parseMetadata(text).metadata,
        ),
      from === to ? undefined : manifestAt(from),
    ]);
    if (from === to) {
      // new metadata for the version there now, tagged with its identity and ETag
      const version = await openVersion(destBucket, destKey);
      if (!version) throw Object.assign(new Error(`no object ${destBucket}/${destKey}`), { code: 'ENOENT' });
      await closeFd(version.fd);
      const etag = JSON.parse(version.metadata.etag!) as string;
      await store.putMetadata(destBucket, destKey, metadata, etag, version.identity);
      return store.getMetadata(destBucket, destKey);
    }
    const previous = await manifestAt(to);
    if (source) {
      const sourceDir = path.join(partsRootOf(store, srcBucket), source.dir);
      const files = source.parts.map((_, n) => path.join(sourceDir, String(n + 1)));
      const manifest = await linkParts(
        store.getBucketPath(destBucket),
        destKey,
        files,
        source.parts,
        source.etag,
        fsync,
      );
      const written = await writeManifest(to, manifest, fsync);
      await store.putMetadata(destBucket, destKey, metadata, source.etag, objectIdentity(written));
    } else {
      const { identity } = await writeAtomically(writer, to, createReadStream(from), fsync, false);
      await store.putMetadata(destBucket, destKey, metadata, md5 || undefined, identity);
    }
    await removeParts(store.getBucketPath(destBucket), previous);
    return store.getMetadata(destBucket, destKey);
  };
  const deleteObject = store.deleteObject.bind(store);
  store.deleteObject = async (bucket, key) => {
    const previous = await manifestAt(objectPath(bucket, key));
    await deleteObject(bucket, key);
    await removeParts(store.getBucketPath(bucket), previous);
  };
  // Completion links the part files into the object's parts directory and writes a manifest naming
  // them (part-objects.ts): no byte of the object is read or written again. Its ETag is S3's for a
  // multipart object, the MD5 of the parts' MD5s and the part count.
  store.putObjectMultipart = async (bucket, uploadId, parts) => {
    const uploadDir = path.join(store.getResourcePath(bucket, undefined, 'uploads'), uploadId);
    const [key, metadata] = await Promise.all([
      readFile(path.join(uploadDir, 'key'), 'utf8'),
      readFile(path.join(uploadDir, 'metadata'), 'utf8').then((text) => JSON.parse(text) as Metadata),
    ]);
    const files = [...parts]
      .sort((a, b) => a.number - b.number)
      .map((part) => path.join(uploadDir, String(part.number)));
    const [md5s, sizes] = await Promise.all([
      Promise.all(files.map((file) => readFile(`${file}.md5`, 'utf8'))),
      Promise.all(files.map(async (file) => (await stat(file)).size)),
    ]);
    const etag = `${createHash('md5')
      .update(Buffer.concat(md5s.map((md5) => Buffer.from(md5.trim(), 'hex'))))
      .digest('hex')}-${files.length}`;
    const file = objectPath(bucket, key);
    const previous = await manifestAt(file);
    const manifest = await linkParts(store.getBucketPath(bucket), key, files, sizes, etag, fsync);
    const written = await writeManifest(file, manifest, fsync);
    // s3rver's default type for an object created without one.
    const type = { 'content-type': 'binary/octet-stream', ...metadata };
    await store.putMetadata(bucket, key, type, etag, objectIdentity(written));
    await rm(uploadDir, { recursive: true, force: true });
    await removeParts(store.getBucketPath(bucket), previous);
    return { size: manifest.bytes, md5: etag };
  };
}

/**
 * s3rver reads the bucket's CORS and website configurations from their files on every request (two
 * file reads, each four trips through libuv's thread pool, before any object is touched). They change
 * only through this store (PutBucketCors and the like, the buckets configured at start), so each is
 * read once and kept until the store writes or deletes it or its bucket. Object subresources (tagging)
 * are read as before.
 */
function cacheBucketConfigs(store: FilesystemStore): void {
  const kept = new Map<string, Promise<unknown>>();
  const name = (bucket: string, type: string) => `${bucket}/${type}`;
  const forget = (bucket: string) => {
    for (const key of kept.keys()) if (key.startsWith(`${bucket}/`)) kept.delete(key);
  };
  const get = store.getSubresource.bind(store);
  store.getSubresource = (bucket, key, type) => {
    if (key !== undefined) return get(bucket, key, type);
    let config = kept.get(name(bucket, type));
    if (!config) {
      config = get(bucket, key, type);
      kept.set(name(bucket, type), config);
      // a failed read is not kept: the next request reads again
      config.catch(() => kept.delete(name(bucket, type)));
    }
    return config;
  };
  const put = store.putSubresource.bind(store);
  store.putSubresource = async (bucket, key, resource) => {
    if (key === undefined) kept.delete(name(bucket, resource.type));
    try {
      await put(bucket, key, resource);
    } finally {
      if (key === undefined) kept.delete(name(bucket, resource.type));
    }
  };
  const remove = store.deleteSubresource.bind(store);
  store.deleteSubresource = async (bucket, key, type) => {
    if (key === undefined) kept.delete(name(bucket, type));
    try {
      await remove(bucket, key, type);
    } finally {
      if (key === undefined) kept.delete(name(bucket, type));
    }
  };
  const deleteBucket = store.deleteBucket.bind(store);
  store.deleteBucket = async (bucket) => {
    forget(bucket);
    try {
      await deleteBucket(bucket);
    } finally {
      forget(bucket);
    }
  };
}

/**
 * s3rver logs every request through koa-logger into winston, even with `silent` (the transport drops
 * the line once it is formatted): two util.format calls, colours and a winston message per request on
 * the main thread, for nothing. Its first middleware is that logger; errors still reach s3rver's own
 * handling, which does not depend on it.
 */
function withoutRequestLog(backend: S3rver): void {
  const [first] = backend.middleware;
  if (first?.name !== 'logger') throw new Error("s3rver's first middleware is no longer its request log");
  backend.middleware.shift();
}

/**
 * s3rver's GET opens the object and then, for a 304 (If-None-Match, If-Modified-Since) or an error,
 * returns without its body: the open file would stay open for good. Every object a GET or HEAD opened
 * and did not send is closed once s3rver's answer is settled.
 */
async function closeUnsentObjects(ctx: S3rverContext, next: () => Promise<void>): Promise<void> {
  if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
  const store = ctx.store;
  const opened: Readable[] = [];
  ctx.store = Object.create(store, {
    getObject: {
      value: async (...args: Parameters<FilesystemStore['getObject']>) => {
        const object = await store.getObject(...args);
        if (object?.content) opened.push(object.content);
        return object;
      },
    },
  }) as FilesystemStore;
  try {
    await next();
  } finally {
    for (const content of opened) if (content !== ctx.body) content.destroy();
  }
}

function partsRootOf(store: FilesystemStore, bucket: string): string {
  return partsRoot(store.getBucketPath(bucket));
}

function ignoreMissing(error: NodeJS.ErrnoException): undefined {
  if (error.code === 'ENOENT') return undefined;
  throw error;
}

type Metadata = Record<string, string>;

/** The key of metadata.json that names the object file it describes (never sent as a header). */
const IDENTITY_FIELD = 'mailvet-object-identity';
/** Opens of an object whose sidecars are another version's, 1, 2, 4... ms apart, before hashing it. */
const VERSION_ATTEMPTS = 8;

/**
 * One object file for good: its inode, size and modification time. A rename keeps all three; a new
 * version is a new file, and one reusing a freed inode still differs in time or size.
 */
function objectIdentity(stats: { ino: number; size: number; mtimeMs: number }): string {
  return `${stats.ino}:${stats.size}:${stats.mtimeMs}`;
}

/** An object's MD5 sidecar: the MD5, then the identity of the file it is the MD5 of. */
function tagged(md5: string, identity: string | undefined): string {
  return identity === undefined ? md5 : `${md5} ${identity}`;
}

function parseTagged(text: string): { md5: string; identity?: string } {
  const [md5 = '', identity] = text.trim().split(' ');
  return identity === undefined ? { md5 } : { md5, identity };
}

function parseMetadata(text: string): { metadata: Metadata; identity?: string } {
  const { [IDENTITY_FIELD]: identity, ...metadata } = JSON.parse(text) as Metadata;
  return identity === undefined ? { metadata } : { metadata, identity };
}

const openFile = promisify(openCallback);
const fstatFd = promisify(fstatCallback);
const closeFd = promisify(closeCallback);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The MD5 of the open file's first `size` bytes (the version a read answers from). */
async function fdMd5(fd: number, size: number): Promise<string> {
  const hash = createHash('md5');
  const buffer = Buffer.allocUnsafe(Math.min(size, 1024 * 1024) || 1);
  for (let position = 0; position < size;) {
    const { bytesRead } = await readFd(fd, buffer, 0, Math.min(buffer.length, size - position), position);
    if (bytesRead === 0) break;
    hash.update(buffer.subarray(0, bytesRead));
    position += bytesRead;
  }
  return hash.digest('hex');
}
const readFd = promisify(readCallback);

async function removePartialFiles(dir: string): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith('.partial'))
      await rm(path.join(entry.parentPath, entry.name), { force: true });
  }
}

/** Bytes gathered before a write to the file: a socket's pieces are 64 KiB or less, a syscall each. */
const WRITE_BATCH_BYTES = 1024 * 1024;

/**
 * Batches of one body handed to the body writer and not written yet; the body's reading waits beyond
 * that (its socket then pauses the sender), so an upload holds a few MiB here, never the whole body.
 */
const WRITES_IN_FLIGHT = 3;

/**
 * Writes a body to a temporary file and renames it into place once the whole body arrived (and, with
 * fsync, is on disk), hashing it (MD5, the ETag) on the way. The body writer's thread does the hashing
 * and the writing (body-writer.ts); this thread only reads the body and hands its pieces over, a batch
 * of WRITE_BATCH_BYTES at a time, while the next batches arrive. A request's pieces move to the thread
 * uncopied; other streams' pieces (copies, parts) are copied, as their producer may hold on to them.
 */
async function writeAtomically(
  writer: BodyWriter,
  target: string,
  content: Readable,
  fsync: boolean,
  md5 = true,
): Promise<{ size: number; md5: string; identity: string }> {
  await mkdir(path.dirname(target), { recursive: true });
  const temporary = `${target}.${randomBytes(6).toString('hex')}.partial`;
  const movable = content instanceof http.IncomingMessage;
  let size = 0;
  let digest: string;
  let identity: string;
  try {
    const file = await writer.open(temporary, md5);
    try {
      let held: Buffer[] = [];
      let heldBytes = 0;
      /** Batches handed over and not yet written, oldest first: at most WRITES_IN_FLIGHT. */
      const writing: Promise<void>[] = [];
      for await (const chunk of content as AsyncIterable<Buffer>) {
        size += chunk.length;
        held.push(chunk);
        heldBytes += chunk.length;
        if (heldBytes < WRITE_BATCH_BYTES) continue;
        if (writing.length >= WRITES_IN_FLIGHT) await writing.shift();
        const batch = file.write(held, movable);
        // awaited above or below; a body that fails meanwhile must not leave it unhandled
        batch.catch(() => undefined);
        writing.push(batch);
        held = [];
        heldBytes = 0;
      }
      if (heldBytes > 0) writing.push(file.write(held, movable));
      await Promise.all(writing);
      digest = await file.finish(fsync);
    } catch (error) {
      await file.abort();
      throw error;
    }
    // before the rename, which keeps it: the file's identity is known before anyone can open it
    identity = objectIdentity(await stat(temporary));
    await rename(temporary, target);
    if (fsync) await syncDirectory(path.dirname(target));
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  return { size, md5: digest, identity };
}
