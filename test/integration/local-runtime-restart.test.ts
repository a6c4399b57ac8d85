// The states a SIGKILL of the local runtime can leave a bulk job in, built step by step (no kill, no
// timing luck) and then handed to a fresh runtime on the same DATA_DIR, which must complete the job.
// The first runtime runs without pollers and without S3 event delivery, so nothing moves on its own: the
// upload's S3 event stays pending on disk, exactly as a crash leaves it before its delivery settled.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ReceiveMessageCommand, DeleteMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoDb, tableName } from '../../functions/clients/dynamodb';
import { demoIds, demoKeys } from '../../local/demo/accounts';
import { getJobItem } from '../../functions/store/jobs/item';
import { holdSlot } from '../../functions/store/jobs/slots-and-leases';
import { markProcessing } from '../../functions/store/jobs/transitions';
import { processingDeadlineSeconds, scanLeaseSeconds } from '../../functions/domain/bulk/limits';
import { parseUploadObjectKey } from '../../functions/domain/bulk/object-keys';
import { startProcessing } from '../../functions/domain/bulk/start-processing';
import { jobKey } from '../../functions/store/keys';
import { tablePoliteness } from '../../functions/store/mx-politeness';
import { apiEvent } from '../../local/events';
import { startLocalRuntime, type LocalRuntime } from '../../local/runtime';
import { sqsRecord } from '../../local/sqs/poller';
import { BulkClient, buildCsv, type CsvModel } from '../e2e/bulk-client';

jest.setTimeout(240_000);

const cleanup: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
});

const rowCount = 200;
const csv = (() => {
  const rows: CsvModel['rows'] = [['name', 'email']];
  for (let n = 0; n < rowCount; n++)
    // test addresses (mailvet.test): fixed verdicts with no DNS, so the restart alone is under test
    rows.push([`Person ${n}`, n % 5 === 0 ? `bounce+x${n}@mailvet.test` : `safe+p${n}@MailVet.test`]);
  return buildCsv({ delimiter: ',', header: true, emailColumn: 1, rows });
})();

async function runtimeOn(dataDir: string, serve: boolean): Promise<LocalRuntime> {
  const runtime = await startLocalRuntime({
    port: 0,
    dataDir,
    fsync: false,
    serve,
    env: {
      CHUNK_SIZE_BYTES: '512',
      LOG_LEVEL: 'silent',
      RATE_LIMIT_PER_SECOND: '1000',
    },
  });
  cleanup.push(() => runtime.stop());
  return runtime;
}

/** A runtime that only stores: a job is created and its file uploaded; the upload's event stays pending. */
async function uploadedJob(): Promise<{ dataDir: string; first: LocalRuntime; jobId: string; key: string }> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'mailvet-restart-'));
  cleanup.push(async () => rmSync(dataDir, { recursive: true, force: true }));
  const first = await runtimeOn(dataDir, false);
  const created = (await first.invoke(
    'createJob',
    apiEvent({
      method: 'POST',
      path: '/v1/email/validate-file',
      headers: { 'x-api-key': demoKeys.admin, 'content-type': 'application/json' },
      body: JSON.stringify({ fileName: 'restart.csv', emailColumn: 1 }),
    }),
  )) as { statusCode: number; body: string };
  expect(created.statusCode).toBe(202);
  const { jobId, uploadUrl } = JSON.parse(created.body) as { jobId: string; uploadUrl: string };
  const put = await new BulkClient('http://127.0.0.1:1', demoKeys.admin).upload(uploadUrl, csv.input);
  expect(put.status).toBe(200);
  const key = decodeURIComponent(new URL(uploadUrl).pathname.split('/').slice(2).join('/'));
  expect(parseUploadObjectKey(key)?.jobId).toBe(jobId);
  return { dataDir, first, jobId, key };
}

/** A second runtime on the same data: every row, count and byte right in the end. */
async function expectCompletedAfterRestart(dataDir: string, jobId: string): Promise<void> {
  const second = await runtimeOn(dataDir, true);
  const client = new BulkClient(second.baseUrl, demoKeys.admin);
  // An event wait, not a duration: the job leaves processing or the wait gives up.
  const seen = await client.waitForEnd(jobId, 180_000, 200);
  expect(seen.at(-1)).toMatchObject({
    status: 'completed',
    totalEmails: rowCount,
    processedEmails: rowCount,
    statistics: csv.statistics,
  });
  expect((await client.download(jobId)).file.equals(csv.expected)).toBe(true);
}

describe('a fresh local runtime completes a bulk job left as a SIGKILL leaves it', () => {
  it('killed after the scan took the job (status processing, scan lease held, nothing scanned)', async () => {
    const { dataDir, first, jobId } = await uploadedJob();
    // startProcessing's first two writes, then the kill: what a crash at the scan's first await leaves.
    const job = (await getJobItem(demoIds.acme, jobId, true))!;
    const now = Date.now();
    const deadlineAtMs = now + processingDeadlineSeconds * 1000;
    expect(await holdSlot(job.companyId, job.slot, jobId, deadlineAtMs)).toBe(true);
    expect(
      await markProcessing(job, {
        now: new Date(now).toISOString(),
        deadlineAtMs,
        scanLeaseUntilMs: now + scanLeaseSeconds * 1000,
      }),
    ).toBe(true);
    const held = (await getJobItem(job.companyId, jobId, true))!;
    expect(held).toMatchObject({ status: 'processing', scanLeaseUntilMs: now + scanLeaseSeconds * 1000 });
    expect(held.chunkCount).toBeUndefined();
    await first.stop();
    // The restart voids the dead scan's lease; the redelivered event must be able to take the scan over.
    await expectCompletedAfterRestart(dataDir, jobId);
  });

  it('killed after the scan recorded its count when every chunk was already counted (no finalize sent)', async () => {
    const { dataDir, first, jobId, key } = await uploadedJob();
    const companyId = demoIds.acme;
    // The scan, with its chunk count held back until every chunk is counted: the order a slow scan and
    // fast validators produce. Then the count lands, and the kill comes before the finalize message.
    await startProcessing({ key, size: csv.input.length });
    const scanned = (await getJobItem(companyId, jobId, true))!;
    const chunkCount = scanned.chunkCount!;
    expect(chunkCount).toBeGreaterThan(1);
    await setChunkCount(companyId, jobId, undefined);
    const sqs = new SQSClient({
      region: 'us-east-1',
      endpoint: first.endpoints.sqs,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    cleanup.push(async () => sqs.destroy());
    const queueUrl = first.env.CHUNKS_QUEUE_URL!;
    let handled = 0;
    while (handled < chunkCount) {
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
      );
      for (const message of Messages) {
        const out = (await first.invoke('validateChunk', {
          Records: [sqsRecord(message, 'arn:aws:sqs:us-east-1:000000000000:mailvet-chunks')],
        })) as { batchItemFailures: unknown[] };
        expect(out.batchItemFailures).toEqual([]);
        await sqs.send(
          new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle }),
        );
        handled += 1;
      }
    }
    await setChunkCount(companyId, jobId, chunkCount);
    const counted = (await getJobItem(companyId, jobId, true))!;
    expect(counted).toMatchObject({ status: 'processing', processedEmails: rowCount, chunkCount });
    expect(counted.doneChunks?.size).toBe(chunkCount);
    await first.stop();
    // Nothing is on the queues; only the upload's pending event is left to finish the job.
    await expectCompletedAfterRestart(dataDir, jobId);
  });
});

describe('a fresh local runtime voids what a dead process held at MX hosts', () => {
  it('frees every MX session slot its probe batches held, so their redelivered batches probe at once', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'mailvet-restart-'));
    cleanup.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const limits = { maxSessionsPerHost: 2, rcptPerSecondPerHost: 20, leaseMs: 150_000 };
    const first = await runtimeOn(dataDir, false);
    const dying = tablePoliteness(limits);
    // the dead process's sessions: every slot at one host, and one at another
    expect(await dying.acquireSession('mx.busy.test')).not.toBeNull();
    expect(await dying.acquireSession('mx.busy.test')).not.toBeNull();
    expect(await dying.acquireSession('mx.busy.test')).toBeNull();
    expect(await dying.acquireSession('mx.other.test')).not.toBeNull();
    await first.stop();

    await runtimeOn(dataDir, false);
    const next = tablePoliteness(limits);
    expect(await next.acquireSession('mx.busy.test')).not.toBeNull();
    expect(await next.acquireSession('mx.busy.test')).not.toBeNull();
    expect(await next.acquireSession('mx.other.test')).not.toBeNull();
  });
});

async function setChunkCount(
  companyId: string,
  jobId: string,
  chunkCount: number | undefined,
): Promise<void> {
  await dynamoDb().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: jobKey(companyId, jobId),
      ...(chunkCount === undefined
        ? { UpdateExpression: 'REMOVE chunkCount' }
        : { UpdateExpression: 'SET chunkCount = :n', ExpressionAttributeValues: { ':n': chunkCount } }),
    }),
  );
}
