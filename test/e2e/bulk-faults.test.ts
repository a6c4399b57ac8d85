// End to end under faults: duplicate S3 events, every chunk delivered twice, validators crashing
// mid-chunk, a chunk failing until the DLQ, second uploads, bad files, the active-job limit and expiry.
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { S3Event } from 'aws-lambda';
import { encodeS3EventKey } from '../../functions/domain/s3-keys';
import { resetSettings } from '../../functions/settings';
import { BulkClient, buildCsv, type CsvModel } from './bulk-client';
import { useBulkRuntime } from './bulk-runtime';

// Timing (issue #15): nothing here races a short clock. Upload URLs live two minutes, so a slow upload
// on a loaded machine is never refused; the one test about expiry shortens the lifetime for its own
// jobs and waits for the instant each URL says it expires. Chunk messages come back 5 s after a crash
// (12 minutes in AWS), and every wait for a job's end is generous.
jest.setTimeout(300_000);
const jobEndTimeoutMs = 180_000;

const bulk = useBulkRuntime({
  // The faults below log loudly by design.
  env: { UPLOAD_URL_TTL_SECONDS: '120', LOG_LEVEL: 'silent' },
  chunkVisibilitySeconds: 5,
});

afterEach(() => jest.restoreAllMocks());

function sample(rowsCount = 60): ReturnType<typeof buildCsv> {
  const rows: CsvModel['rows'] = [['name', 'email']];
  for (let n = 0; n < rowsCount; n++)
    rows.push([
      `Person "${n}", with a comma\nand a newline`,
      n % 7 === 0 ? `x${n}@nowhere.test` : `p${n}@ok.test`,
    ]);
  return buildCsv({ delimiter: ',', header: true, emailColumn: 1, rows });
}

async function expectCompletedAsExpected(jobId: string, csv: ReturnType<typeof buildCsv>) {
  const seen = await bulk.client.waitForEnd(jobId, jobEndTimeoutMs);
  const final = seen[seen.length - 1]!;
  expect(final).toMatchObject({
    status: 'completed',
    statistics: csv.statistics,
    totalEmails: 60,
    processedEmails: 60,
  });
  const { file } = await bulk.client.download(jobId);
  expect(file.equals(csv.expected)).toBe(true);
}

function objectCreated(key: string, size: number): S3Event {
  return {
    Records: [
      {
        eventVersion: '2.1',
        eventSource: 'aws:s3',
        awsRegion: 'us-east-1',
        eventTime: new Date().toISOString(),
        eventName: 'ObjectCreated:Put',
        userIdentity: { principalId: 'local' },
        requestParameters: { sourceIPAddress: '127.0.0.1' },
        responseElements: { 'x-amz-request-id': 'r', 'x-amz-id-2': 'i' },
        s3: {
          s3SchemaVersion: '1.0',
          configurationId: 'uploads',
          bucket: {
            name: bulk.runtime.runtime.env.BUCKET_NAME!,
            ownerIdentity: { principalId: 'local' },
            arn: 'arn:aws:s3:::b',
          },
          object: { key: encodeS3EventKey(key), size, eTag: 'x', sequencer: '1' },
        },
      },
    ],
  };
}

describe('bulk processing under faults', () => {
  it('processes a job once when its S3 event arrives several times', async () => {
    // Every run reads and scans the upload while it tries to start the job; only the one that started
    // it may send chunks: each chunk goes out once. The move to processing is slowed down so that every
    // run has scanned the (small) file before it knows whether it started the job.
    const sentChunks: string[] = [];
    const dynamoSend = DynamoDBDocumentClient.prototype.send;
    jest.spyOn(DynamoDBDocumentClient.prototype, 'send').mockImplementation(async function (
      this: DynamoDBDocumentClient,
      command: unknown,
    ) {
      // the move (a transaction with the day's counts, or an update): the only write that sets startedAt
      const input = (command as { input?: unknown }).input;
      if (JSON.stringify(input ?? {}).includes('startedAt = :now'))
        await new Promise((resolve) => setTimeout(resolve, 500));
      return (dynamoSend.bind(this) as (c: unknown) => Promise<unknown>)(command);
    } as never);
    const original = SQSClient.prototype.send;
    jest.spyOn(SQSClient.prototype, 'send').mockImplementation(function (this: SQSClient, command: unknown) {
      if (
        command instanceof SendMessageBatchCommand &&
        command.input.QueueUrl === bulk.runtime.runtime.env.CHUNKS_QUEUE_URL
      )
        sentChunks.push(...(command.input.Entries ?? []).map((entry) => entry.Id ?? ''));
      return (original.bind(this) as (c: unknown) => Promise<unknown>)(command);
    } as never);
    const csv = sample();
    const { jobId, uploadUrl } = await bulk.client.create({ emailColumn: 1 });
    expect((await bulk.client.upload(uploadUrl, csv.input)).status).toBe(200);
    const key = `uploads/${bulk.runtime.ids.acme}/${jobId}.csv`;
    await Promise.all(
      [1, 2, 3].map(() =>
        bulk.runtime.runtime.invoke('startProcessing', objectCreated(key, csv.input.length)),
      ),
    );
    await expectCompletedAsExpected(jobId, csv);
    expect(sentChunks.length).toBeGreaterThan(1);
    expect([...sentChunks].sort()).toEqual(
      Array.from({ length: sentChunks.length }, (_, n) => `c${n}`).sort(),
    );
    // And once more after completion: ignored.
    await bulk.runtime.runtime.invoke('startProcessing', objectCreated(key, csv.input.length));
    expect((await bulk.client.status(jobId)).status).toBe('completed');
  });

  it('counts every chunk once when every chunk message is delivered twice', async () => {
    const original = SQSClient.prototype.send;
    jest.spyOn(SQSClient.prototype, 'send').mockImplementation(async function (
      this: SQSClient,
      command: unknown,
    ) {
      const send = original.bind(this) as (c: unknown) => Promise<unknown>;
      if (
        command instanceof SendMessageBatchCommand &&
        command.input.QueueUrl === bulk.runtime.runtime.env.CHUNKS_QUEUE_URL
      ) {
        await send(new SendMessageBatchCommand(command.input));
      }
      return send(command);
    } as never);
    const csv = sample();
    const { jobId, uploadUrl } = await bulk.client.create({ emailColumn: 1 });
    await bulk.client.upload(uploadUrl, csv.input);
    await expectCompletedAsExpected(jobId, csv);
  });

  it('recovers from validators crashing mid-chunk (before and after writing the part)', async () => {
    // The first attempt of every chunk crashes: before its part is written (even chunks) or after it
    // was written but before it was counted (odd chunks). SQS delivers each again a second later.
    const crashed = new Set<string>();
    const s3Send = S3Client.prototype.send;
    jest.spyOn(S3Client.prototype, 'send').mockImplementation(async function (
      this: S3Client,
      command: unknown,
    ) {
      const key = (command as { input?: { Key?: string } }).input?.Key ?? '';
      const index = /\/(\d{6})-[^/]+\.csv$/.exec(key)?.[1];
      if (
        command instanceof PutObjectCommand &&
        index &&
        Number(index) % 2 === 0 &&
        !crashed.has(`part ${index}`)
      ) {
        crashed.add(`part ${index}`);
        throw new Error('injected crash before the part is written');
      }
      return (s3Send.bind(this) as (c: unknown) => Promise<unknown>)(command);
    } as never);
    const ddbSend = DynamoDBDocumentClient.prototype.send;
    jest.spyOn(DynamoDBDocumentClient.prototype, 'send').mockImplementation(async function (
      this: DynamoDBDocumentClient,
      command: unknown,
    ) {
      const index =
        command instanceof UpdateCommand ? command.input.ExpressionAttributeNames?.['#i'] : undefined;
      if (index && Number(index) % 2 === 1 && !crashed.has(`count ${index}`)) {
        crashed.add(`count ${index}`);
        throw new Error('injected crash after the part was written, before it was counted');
      }
      return (ddbSend.bind(this) as (c: unknown) => Promise<unknown>)(command);
    } as never);
    const csv = sample();
    const { jobId, uploadUrl } = await bulk.client.create({ emailColumn: 1 });
    await bulk.client.upload(uploadUrl, csv.input);
    await expectCompletedAsExpected(jobId, csv);
    expect([...crashed].filter((c) => c.startsWith('part')).length).toBeGreaterThan(3);
    expect([...crashed].filter((c) => c.startsWith('count')).length).toBeGreaterThan(3);
  });

  it('fails the job with an actionable error when a chunk keeps failing until the DLQ', async () => {
    const s3Send = S3Client.prototype.send;
    jest.spyOn(S3Client.prototype, 'send').mockImplementation(async function (
      this: S3Client,
      command: unknown,
    ) {
      if (command instanceof GetObjectCommand && command.input.Range?.startsWith('bytes=0-'))
        throw new Error('injected: chunk 0 cannot be read');
      return (s3Send.bind(this) as (c: unknown) => Promise<unknown>)(command);
    } as never);
    const csv = sample();
    const { jobId, uploadUrl } = await bulk.client.create({ emailColumn: 1 });
    await bulk.client.upload(uploadUrl, csv.input);
    const seen = await bulk.client.waitForEnd(jobId, jobEndTimeoutMs, 300);
    const final = seen[seen.length - 1]!;
    expect(final.status).toBe('failed');
    expect(final.error).toMatch(/could not be validated after several attempts\. Create a new job/);
    const download = await bulk.client.request('GET', `/v1/email/validate-file/${jobId}/download`);
    expect(download.status).toBe(409);
    expect(await download.text()).toBe('{"error":"Job is not completed"}');
  });

  it('never mixes two files when the upload URL is used twice', async () => {
    const first = sample();
    const second = buildCsv({
      delimiter: ';',
      emailColumn: 1,
      rows: [
        ['x', 'a@ok.test'],
        ['y', 'b@nowhere.test'],
      ],
    });
    const { jobId, uploadUrl } = await bulk.client.create({ emailColumn: 1 });
    await bulk.client.upload(uploadUrl, first.input);
    await bulk.client.upload(uploadUrl, second.input);
    const seen = await bulk.client.waitForEnd(jobId, jobEndTimeoutMs);
    const final = seen[seen.length - 1]!;
    // Whichever file the scan read is processed whole; a file replaced under running chunks fails the job.
    if (final.status === 'completed') {
      const { file } = await bulk.client.download(jobId);
      expect(file.equals(first.expected) || file.equals(second.expected)).toBe(true);
    } else {
      expect(final.error).toMatch(/replaced by a second upload/);
    }
  });

  it.each([
    ['an empty file', Buffer.alloc(0), /no data rows/],
    ['a header without rows', Buffer.from('name,email\r\n'), /no data rows/],
    ['only empty lines', Buffer.from('\n\r\n\n'), /no data rows/],
    ['a file over 100 MB', Buffer.alloc(104_857_601, 'a@ok.test\n'), /^File exceeds the 100 MB limit$/],
  ])('fails the job for %s', async (_name, file, error) => {
    const { jobId, uploadUrl } = await bulk.client.create({ emailColumn: 1 });
    expect((await bulk.client.upload(uploadUrl, file)).status).toBe(200);
    const seen = await bulk.client.waitForEnd(jobId, jobEndTimeoutMs);
    expect(seen[seen.length - 1]).toMatchObject({ status: 'failed', error: expect.stringMatching(error) });
  });

  it('lets exactly 5 of 20 concurrent creations through, then frees expired slots at once', async () => {
    // Short-lived URLs for this test's jobs only (the handlers run in this process and read settings()).
    process.env.UPLOAD_URL_TTL_SECONDS = '3';
    resetSettings();
    const other = new BulkClient(bulk.runtime.baseUrl, bulk.runtime.keys.other);
    let results: Response[];
    try {
      results = await Promise.all(
        Array.from({ length: 20 }, () =>
          other.request('POST', '/v1/email/validate-file', { emailColumn: 0 }),
        ),
      );
    } finally {
      process.env.UPLOAD_URL_TTL_SECONDS = '120';
      resetSettings();
    }
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 202)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(15);
    const refused = results.find((r) => r.status === 429)!;
    expect(refused.headers.get('retry-after')).toBe('60');
    expect(await refused.text()).toBe(
      '{"error":"Concurrent job limit reached. Complete or wait for existing jobs before creating new ones."}',
    );
    const created = (await Promise.all(results.filter((r) => r.status === 202).map((r) => r.json()))) as {
      jobId: string;
      uploadUrl: string;
    }[];

    // Wait for the job to read expired and for the instant its URL says it expires (signing time plus
    // X-Amz-Expires), however long the machine took to get here.
    const first = created[0]!;
    await until(async () => (await other.status(first.jobId)).status === 'expired');
    const url = new URL(first.uploadUrl);
    const signedAt = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(
      url.searchParams.get('X-Amz-Date')!,
    )!;
    const urlExpiresAt =
      Date.UTC(+signedAt[1]!, +signedAt[2]! - 1, +signedAt[3]!, +signedAt[4]!, +signedAt[5]!, +signedAt[6]!) +
      Number(url.searchParams.get('X-Amz-Expires')) * 1000;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, urlExpiresAt + 1000 - Date.now())));
    const late = await other.upload(first.uploadUrl, Buffer.from('a@ok.test\n'));
    expect(late.status).toBe(403);
    const again = await other.request('POST', '/v1/email/validate-file', { emailColumn: 0 });
    expect(again.status).toBe(202);
  });

  it('fails a job whose start keeps failing through the on-failure destination, with a clear error', async () => {
    // The scan's read of the upload (the one whole-object GET of an upload) fails every time: the S3
    // event's invocation and its retry throw, then failStartProcessing gets the destination record.
    const s3Send = S3Client.prototype.send;
    const scanReads: string[] = [];
    jest.spyOn(S3Client.prototype, 'send').mockImplementation(async function (
      this: S3Client,
      command: unknown,
    ) {
      if (
        command instanceof GetObjectCommand &&
        command.input.Key?.startsWith('uploads/') &&
        command.input.Range === undefined
      ) {
        scanReads.push(command.input.Key);
        throw new Error('injected: the upload cannot be read');
      }
      return (s3Send.bind(this) as (c: unknown) => Promise<unknown>)(command);
    } as never);
    const csv = sample();
    const { jobId, uploadUrl } = await bulk.client.create({ emailColumn: 1, fileName: 'start-fails.csv' });
    expect((await bulk.client.upload(uploadUrl, csv.input)).status).toBe(200);
    const seen = await bulk.client.waitForEnd(jobId, jobEndTimeoutMs, 300);
    expect(seen[seen.length - 1]).toMatchObject({
      status: 'failed',
      error:
        'The uploaded file could not be read and split after several attempts. Create a new job and upload the file again; if it happens again, contact support with this job ID.',
    });
    // The invocation and its one retry (wiring.ts retryAttempts: 1), both on this job's upload.
    expect(scanReads).toEqual([
      `uploads/${bulk.runtime.ids.acme}/${jobId}.csv`,
      `uploads/${bulk.runtime.ids.acme}/${jobId}.csv`,
    ]);
    // The job let go of its slot, and the list shows it failed.
    const listed = await bulk.client.request('GET', '/v1/email/validate-file?status=failed&limit=1000');
    const jobs = ((await listed.json()) as { jobs: { jobId: string }[] }).jobs;
    expect(jobs.map((j) => j.jobId)).toContain(jobId);
  });
});

/** Polls `check` until it holds (every 200 ms, up to two minutes). */
async function until(check: () => Promise<boolean>, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition still false after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
