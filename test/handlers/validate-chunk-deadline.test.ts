// validateChunk with little time left and a name server that never answers: the chunk stops waiting for
// DNS at the invocation's deadline (remaining time less afterDnsReserveMs), writes its part with the
// late domain's rows some_risk / dns_timeout and is counted; it is not left to time out and be retried.
// Its first pass sends it again for a DNS retry round (DNS_RETRY_DELAY_SECONDS later) instead of writing.
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import type { SQSEvent } from 'aws-lambda';
import { afterDnsReserveMs } from '../../functions/domain/bulk/validate-chunk';
import { handler } from '../../functions/handlers/validate-chunk';
import { resetSettings } from '../../functions/settings';
import { lambdaContext } from '../../local/events';
import { startFixtureDns, type FixtureDns } from '../unit/validation/fixtures/dns-server';

const ddb = mockClient(DynamoDBDocumentClient);
const s3 = mockClient(S3Client);
const sqs = mockClient(SQSClient);
/** The resolver's own timeout: far longer than the time the chunk has for DNS. */
const resolverTimeoutMs = 2_000;
const csv = Buffer.from('ann@ok.test\nbob@slow.test\n');
let dns: FixtureDns;

beforeAll(async () => {
  dns = await startFixtureDns({
    'ok.test': { mx: [{ exchange: 'mx.ok.test', priority: 10 }] },
    'mx.ok.test': { a: ['127.0.0.1'] },
    'slow.test': { behaviour: 'silent' },
  });
  Object.assign(process.env, {
    DNS_SERVERS: dns.servers.join(','),
    DNS_TIMEOUT_MS: String(resolverTimeoutMs),
    ALLOW_PRIVATE_MX: 'true',
  });
  resetSettings();
});

afterAll(async () => {
  // the late lookup ends by its own timeout; then nothing is left open
  await new Promise((resolve) => setTimeout(resolve, resolverTimeoutMs));
  await dns.close();
});

const job = {
  pk: 'COMPANY#c1',
  sk: 'JOB#j1',
  entity: 'job',
  companyId: 'c1',
  jobId: 'j1',
  status: 'processing',
  slot: 0,
  chunkCount: 2,
  totalEmails: 4,
  processedEmails: 0,
  // what every stored job has (its creation writes them)
  emailColumn: 1,
  createdAt: '2026-01-01T00:00:00.000Z',
  uploadExpiresAtMs: 1,
  counts: { safe: 0, block_bounce_risk: 0, some_risk: 0, dead_email: 0, do_not_mail_abuse: 0 },
  partKeys: {},
  partBytes: {},
};

function chunkEvent(extra: Record<string, unknown> = {}): SQSEvent {
  const body = {
    kind: 'chunk',
    companyId: 'c1',
    jobId: 'j1',
    index: 0,
    start: 0,
    end: csv.length,
    dataRows: 2,
    headerRow: false,
    delimiter: ',',
    encoding: 'utf-8',
    dataStart: 0,
    emailColumn: 0,
    object: { key: 'uploads/c1/j1.csv', etag: 'e1', size: csv.length },
    ...extra,
  };
  return {
    Records: [{ messageId: 'm1', body: JSON.stringify(body) } as SQSEvent['Records'][number]],
  };
}

function mockStores() {
  ddb.reset();
  s3.reset();
  sqs.reset();
  sqs.on(SendMessageCommand).resolves({ MessageId: 'retry' });
  ddb.onAnyCommand().resolves({});
  ddb.on(GetCommand).resolves({ Item: job });
  ddb.on(UpdateCommand).resolves({ Attributes: { ...job, doneChunks: new Set([0]) } });
  s3.on(GetObjectCommand).callsFake(async () => ({
    ETag: '"e1"',
    // the one method readPinnedRange reads a body with
    Body: { transformToByteArray: async () => new Uint8Array(csv) },
  }));
  s3.on(PutObjectCommand).resolves({});
}

it('sends a chunk whose domains timed out in its first pass again later, writing nothing yet', async () => {
  mockStores();
  const out = await handler(chunkEvent(), lambdaContext('validateChunk', afterDnsReserveMs + 300));
  expect(out).toEqual({ batchItemFailures: [] });
  expect(s3.commandCalls(PutObjectCommand)).toHaveLength(0);
  expect(ddb.commandCalls(UpdateCommand)).toHaveLength(0);
  const sent = sqs.commandCalls(SendMessageCommand).map((c) => c.args[0].input);
  expect(sent).toHaveLength(1);
  expect(sent[0]!.DelaySeconds).toBe(30);
  expect(JSON.parse(String(sent[0]!.MessageBody))).toEqual({
    ...JSON.parse(chunkEvent().Records[0]!.body),
    dnsRetry: true,
  });
});

it('writes and counts a chunk whose name server never answers, with the late rows some_risk / dns_timeout', async () => {
  mockStores();

  // 300 ms for DNS, then the reserve for the rest of the chunk
  const context = lambdaContext('validateChunk', afterDnsReserveMs + 300);
  const started = Date.now();
  const out = await handler(chunkEvent({ dnsRetry: true }), context);
  const tookMs = Date.now() - started;

  expect(out).toEqual({ batchItemFailures: [] });
  expect(tookMs).toBeLessThan(resolverTimeoutMs);
  const parts = s3.commandCalls(PutObjectCommand).map((c) => c.args[0].input);
  const part = parts.find((p) => !String(p.Key).endsWith('.idx'));
  expect(String(part?.Body)).toContain('bob@slow.test,some_risk');
  expect(String(part?.Body)).toContain('ann@ok.test,safe');
  const index = parts.find((p) => p !== part);
  expect(String(index?.Body)).toContain('dns_timeout');
  const counted = ddb.commandCalls(UpdateCommand).map((c) => c.args[0].input.ExpressionAttributeValues ?? {});
  expect(counted.some((values) => values[':processed'] === 2)).toBe(true);
});
