// The set-up the bulk end-to-end files share: the fixture DNS, a local runtime pointed at it with small
// chunks, and a client with the demo admin key, started before a file's tests and stopped after them.
import { SetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { fixtureDnsSettings, startTestRuntime, type TestRuntime } from '../helpers/local-runtime';
import type { FixtureDns } from '../unit/validation/fixtures/dns-server';
import { BulkClient, startBulkDns } from './bulk-client';

export interface BulkRuntime {
  dns: FixtureDns;
  runtime: TestRuntime;
  /** The demo admin's client. */
  client: BulkClient;
}

export interface BulkRuntimeOptions {
  /** Settings on top of the fixture DNS and CHUNK_SIZE_BYTES=64. */
  env?: Record<string, string>;
  /** Redeliver an unacknowledged chunk message after this many seconds instead of 12 minutes. */
  chunkVisibilitySeconds?: number;
  /** Worker threads for the queue consumers and the scan (startTestRuntime's default otherwise). */
  workers?: number;
}

/**
 * Registers the file's beforeAll/afterAll and returns the object they fill: read its fields inside
 * tests, not at module scope.
 */
export function useBulkRuntime(options: BulkRuntimeOptions = {}): BulkRuntime {
  const bulk = {} as BulkRuntime;
  beforeAll(async () => {
    bulk.dns = await startBulkDns();
    bulk.runtime = await startTestRuntime(
      {
        ...fixtureDnsSettings(bulk.dns),
        CHUNK_SIZE_BYTES: '64',
        ...options.env,
      },
      options.workers === undefined ? {} : { workers: options.workers },
    );
    bulk.client = new BulkClient(bulk.runtime.baseUrl, bulk.runtime.keys.admin);
    if (options.chunkVisibilitySeconds !== undefined) {
      const sqs = new SQSClient({
        region: 'us-east-1',
        endpoint: bulk.runtime.runtime.endpoints.sqs,
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      });
      await sqs.send(
        new SetQueueAttributesCommand({
          QueueUrl: bulk.runtime.runtime.env.CHUNKS_QUEUE_URL!,
          Attributes: { VisibilityTimeout: String(options.chunkVisibilitySeconds) },
        }),
      );
      sqs.destroy();
    }
  });
  afterAll(async () => {
    await bulk.runtime?.stop();
    await bulk.dns?.close();
  });
  return bulk;
}
