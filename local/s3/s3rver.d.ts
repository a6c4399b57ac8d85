// The slice of s3rver 3.7.1 (untyped, pinned) that the local S3 uses: the server, its event stream,
// its filesystem store (patched in local-s3.ts) and the access-key registry it checks keys against.

declare module 's3rver' {
  import type { EventEmitter } from 'node:events';
  import type { IncomingMessage, Server, ServerResponse } from 'node:http';
  import type { AddressInfo } from 'node:net';
  import type { Readable } from 'node:stream';

  export interface S3rverOptions {
    address?: string;
    port?: number;
    silent?: boolean;
    directory?: string;
    resetOnClose?: boolean;
    allowMismatchedSignatures?: boolean;
    vhostBuckets?: boolean;
    configureBuckets?: { name: string; configs?: (string | Buffer)[] }[];
  }

  /** One record of what s3rver emits as `event` (its own shape, close to but not quite AWS's). */
  export interface S3rverEventRecord {
    eventTime: string;
    /** `ObjectCreated:Put`, `ObjectCreated:Copy`, `ObjectCreated:Post` (also multipart completion), `ObjectRemoved:Delete`. */
    eventName: string;
    userIdentity: { principalId: string };
    requestParameters: { sourceIPAddress: string };
    responseElements: { 'x-amz-request-id': string; 'x-amz-id-2': string };
    s3: {
      bucket: { name: string; ownerIdentity: { principalId: string } };
      /** key is the plain (decoded) key; eTag is missing on Copy, size on Delete. */
      object: { key: string; size?: number; eTag?: string; sequencer: string };
    };
  }

  export interface S3rverObject {
    bucket: string;
    key: string;
    content: Readable | Buffer | null;
    metadata: Record<string, string>;
  }

  /** An object as the store hands it to s3rver's controllers (s3rver/lib/models/object). */
  export interface S3rverStoredObject {
    bucket: string;
    key: string;
    content: Readable | null;
    metadata: Record<string, string>;
    range?: { start: number; end: number };
  }

  export interface FilesystemStore {
    getResourcePath(bucket: string, key: string | undefined, resource: string): string;
    getBucketPath(bucket: string): string;
    deleteObject(bucket: string, key: string): Promise<void>;
    getMetadata(bucket: string, key: string): Promise<Record<string, string>>;
    /** A bucket's (key undefined) or an object's configuration document (cors, website, tagging), or null. */
    getSubresource(bucket: string, key: string | undefined, resourceType: string): Promise<unknown>;
    putSubresource(bucket: string, key: string | undefined, resource: { type: string }): Promise<void>;
    deleteSubresource(bucket: string, key: string | undefined, resourceType: string): Promise<void>;
    deleteBucket(bucket: string): Promise<void>;
    /** `identity`: the local S3's own (local-s3.ts), the object file the metadata describes. */
    putMetadata(
      bucket: string,
      key: string,
      metadata: Record<string, string>,
      md5?: string,
      identity?: string,
    ): Promise<void>;
    putObject(object: S3rverObject): Promise<{ size: number; md5: string }>;
    /** null when the key does not exist; no content when the range cannot be satisfied. */
    getObject(
      bucket: string,
      key: string,
      options?: { start?: number; end?: number },
    ): Promise<S3rverStoredObject | null>;
    copyObject(
      srcBucket: string,
      srcKey: string,
      destBucket: string,
      destKey: string,
      replacementMetadata?: Record<string, string>,
    ): Promise<Record<string, string>>;
    putPart(
      bucket: string,
      uploadId: string,
      partNumber: string | number,
      content: Readable,
    ): Promise<{ size: number; md5: string }>;
    putObjectMultipart(
      bucket: string,
      uploadId: string,
      parts: { number: number; etag: string }[],
    ): Promise<{ size: number; md5: string }>;
  }

  /** The part of a Koa context the local S3's middleware reads. */
  export interface S3rverContext {
    method: string;
    body: unknown;
    store: FilesystemStore;
  }

  class S3rver extends EventEmitter {
    constructor(options: S3rverOptions);
    store: FilesystemStore;
    /** Koa's flag: trust X-Forwarded-For for the client address. */
    proxy: boolean;
    /** Set by run(). */
    httpServer?: Server;
    run(): Promise<AddressInfo>;
    /** Koa's middleware, in order; run() and callback() compose it when called. */
    middleware: ((ctx: S3rverContext, next: () => Promise<void>) => Promise<void>)[];
    /** Koa's request handler (what run()'s server calls). */
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    close(): Promise<void>;
    on(event: 'event', listener: (event: { Records: S3rverEventRecord[] }) => void): this;
    on(event: string, listener: (...args: unknown[]) => void): this;
  }
  export default S3rver;
}

declare module 's3rver/lib/models/account' {
  interface AWSAccount {
    createKeyPair(accessKeyId: string, secretAccessKey: string): void;
  }
  export const DUMMY_ACCOUNT: AWSAccount;
}

declare module 's3rver/lib/models/object' {
  import type { Readable } from 'node:stream';
  import type { S3rverStoredObject } from 's3rver';
  /** Validates the storage class and keeps the metadata s3rver serves. */
  class S3Object implements S3rverStoredObject {
    constructor(bucket: string, key: string, content: Readable | null, metadata: Record<string, string>);
    bucket: string;
    key: string;
    content: Readable | null;
    metadata: Record<string, string>;
    range?: { start: number; end: number };
    /** The metadata names s3rver keeps besides x-amz-meta-*. */
    static ALLOWED_METADATA: string[];
  }
  export = S3Object;
}
