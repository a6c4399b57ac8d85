// A local S3 of its own for a describe block (or a test file): started in beforeAll on a fresh data
// directory, with a client, and stopped and removed in afterAll.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import { startLocalS3, type LocalS3, type LocalS3Options } from '../../local/s3/local-s3';
import { localS3Client } from './local-s3-client';

export interface LocalS3Fixture {
  /** Set once beforeAll has run. */
  readonly local: LocalS3;
  readonly s3: S3Client;
  readonly dataDir: string;
}

/**
 * Registers the hooks; read the fields inside tests. fsync is off unless `options` says otherwise:
 * these tests are about what clients see, not about what a crash keeps.
 */
export function useLocalS3(
  name: string,
  options: Pick<LocalS3Options, 'buckets' | 'accessKeyId' | 'secretAccessKey'> & Partial<LocalS3Options>,
): LocalS3Fixture {
  let local: LocalS3 | undefined;
  let s3: S3Client | undefined;
  let dataDir: string | undefined;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), `mailvet-${name}-`));
    local = await startLocalS3({ dataDir, port: 0, fsync: false, ...options });
    s3 = localS3Client(local.url, {
      accessKeyId: options.accessKeyId,
      secretAccessKey: options.secretAccessKey,
    });
  });
  afterAll(async () => {
    s3?.destroy();
    await local?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });
  return {
    get local() {
      return local!;
    },
    get s3() {
      return s3!;
    },
    get dataDir() {
      return dataDir!;
    },
  };
}
