// The set-up the bulk end-to-end files share: the fixture DNS, a local runtime pointed at it with small
// chunks, and a client with the demo admin key, started before a file's tests and stopped after them.
import { SetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { fixtureDnsSettings, startTestRuntime, type TestRuntime } from '../helpers/local-runtime';
import { expectDocumented } from '../helpers/openapi-check';
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

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export interface CallOptions {
  /** The demo admin's key unless given. */
  key?: string;
  /** Sent as JSON. */
  body?: unknown;
  headers?: Record<string, string>;
}

/**
 * A plain fetch of any route of `bulk`'s runtime, for tests that set their own keys and headers: the
 * answer is checked against docs/openapi.json and its body parsed (undefined when empty).
 */
export function documentedCall(
  bulk: BulkRuntime,
): (method: string, path: string, options?: CallOptions) => Promise<{ status: number; body: Json }> {
  return async (method, path, options = {}) => {
    const response = await fetch(`${bulk.runtime.baseUrl}${path}`, {
      method,
      headers: {
        'x-api-key': options.key ?? bulk.runtime.keys.admin,
        ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...options.headers,
      },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    await expectDocumented(method, path, response);
    const text = await response.text();
    return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
  };
}
