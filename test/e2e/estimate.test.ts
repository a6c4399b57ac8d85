// Estimate jobs through the public API: "estimate": true validates a sample and completes with the
// projection and no results file; POST .../run validates the whole upload as a new job. Every answer is
// checked against docs/openapi.json.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { S3Event } from 'aws-lambda';
import { onboardCompany, parseOnboardingInput } from '../../functions/domain/accounts/onboarding';
import { binaryDataError } from '../../functions/domain/bulk/csv/not-text';
import { encodeS3EventKey } from '../../functions/domain/s3-keys';
import { BulkClient } from './bulk-client';
import { documentedCall, useBulkRuntime, type Json } from './bulk-runtime';

jest.setTimeout(240_000);

const bulk = useBulkRuntime({
  // chunks of 64 KB: the known-mix file is 12,000 rows. One sample seed: the test knows which rows are
  // drawn, so it is exact; the rows are in blocks by status, so a sample that is not uniform shows.
  env: { RATE_LIMIT_PER_SECOND: '100000', CHUNK_SIZE_BYTES: String(64 * 1024), ESTIMATE_SAMPLE_SEED: '1' },
});

const call = documentedCall(bulk);

/** Creates a job, uploads `file`, waits for it to end; the last status body. */
async function runJob(file: string, body: Record<string, unknown>): Promise<Json> {
  const created = await call('POST', '/v1/email/validate-file', { body });
  expect(created.status).toBe(202);
  expect((await bulk.client.upload(created.body.uploadUrl, Buffer.from(file))).status).toBe(200);
  return waitForEnd(created.body.jobId);
}

async function waitForEnd(jobId: string): Promise<Json> {
  const seen = await bulk.client.waitForEnd(jobId, 120_000, 200);
  return seen[seen.length - 1];
}

const usedBulk = async (): Promise<number> => (await call('GET', '/v1/usage')).body.used.bulk;

/** A file of known mix: test addresses whose statuses need no DNS, in blocks by status. */
function knownMixFile(rows: number): string {
  const mix: [string, number][] = [
    ['safe', 0.45],
    ['bounce', 0.25],
    ['full', 0.15],
    ['abuse', 0.1],
    ['dead', 0.05],
  ];
  const names: string[] = [];
  for (const [name, share] of mix) for (let i = 0; i < rows * share; i++) names.push(name);
  return ['id,email', ...names.map((name, i) => `${i},${name}+${i}@mailvet.test`)].join('\n') + '\n';
}

/** The upload's ObjectCreated event, as S3 would deliver it again (events/startProcessing.json). */
function uploadEvent(jobId: string, size: number): S3Event {
  const event = JSON.parse(
    readFileSync(path.join(__dirname, '../../events/startProcessing.json'), 'utf8'),
  ) as S3Event;
  const record = event.Records[0]!;
  record.s3.bucket.name = bulk.runtime.runtime.env.BUCKET_NAME!;
  record.s3.object.key = encodeS3EventKey(`uploads/${bulk.runtime.ids.acme}/${jobId}.csv`);
  record.s3.object.size = size;
  return event;
}

const smallFile = [
  'name,email',
  'Ann,ann@ok.test',
  'Bob,bob@nowhere.test',
  'Cy,abuse@ok.test',
  'Dee,',
  'Eve,eve@ok.test',
].join('\n');

describe('estimate jobs', () => {
  test('projects a 12,000-row file of known mix within 3 points of its full run, which /run gives', async () => {
    const file = knownMixFile(12_000);
    const estimate = await runJob(file, { emailColumn: 1, fileName: 'mix.csv', estimate: true });
    expect(estimate.status).toBe('completed');
    expect(estimate.estimate.rows).toBe(12_000);
    expect(estimate.estimate.sampled).toBe(1000);
    expect(estimate.totalEmails).toBe(1000);
    const projected: Record<string, number> = estimate.estimate.statistics;
    expect(Object.values(projected).reduce((a, b) => a + b, 0)).toBe(12_000);

    const run = await call('POST', `/v1/email/validate-file/${estimate.jobId}/run`);
    expect(run.status).toBe(201);
    expect(run.body.jobId).not.toBe(estimate.jobId);
    const full = await waitForEnd(run.body.jobId);
    expect(full.status).toBe('completed');
    expect(full.totalEmails).toBe(12_000);
    for (const [status, count] of Object.entries(full.statistics as Record<string, number>))
      expect(Math.abs(projected[status]! - count) / 12_000).toBeLessThanOrEqual(0.03);
    // the run keeps the estimate's fileName
    const download = await call('GET', `/v1/email/validate-file/${run.body.jobId}/download`);
    expect(download.body.fileName).toBe('mix_processed_by_mailvet.csv');
  });

  test('samples every row of a small file, counts them in usage, and has no results file', async () => {
    const before = await usedBulk();
    const job = await runJob(smallFile, { emailColumn: 1, fileName: 'people.csv', estimate: true });
    expect(job).toMatchObject({ status: 'completed', totalEmails: 5, processedEmails: 5 });
    const exact = { safe: 2, block_bounce_risk: 2, do_not_mail_abuse: 1, some_risk: 0, dead_email: 0 };
    expect(job.estimate).toEqual({ rows: 5, sampled: 5, statistics: exact });
    expect(job.statistics).toEqual(exact);
    expect(await usedBulk()).toBe(before + 5);

    const download = await call('GET', `/v1/email/validate-file/${job.jobId}/download`);
    expect(download.status).toBe(409);
    expect(download.body.error).toMatch(/is an estimate and has no results file/);
  });

  test('fails with nothing counted when its sample is more than the validations left', async () => {
    // The reservation runs while the sample's domains resolve: a refusal still fails the job cleanly.
    const n = Math.random().toString(36).slice(2, 8);
    const company = await onboardCompany(
      parseOnboardingInput({ name: `Est ${n}`, adminEmail: `ops@${n}.example`, monthlyQuota: 3 }),
    );
    const client = new BulkClient(bulk.runtime.baseUrl, company.apiKey);
    const created = await call('POST', '/v1/email/validate-file', {
      key: company.apiKey,
      body: { emailColumn: 1, estimate: true },
    });
    expect(created.status).toBe(202);
    expect((await client.upload(created.body.uploadUrl, Buffer.from(smallFile))).status).toBe(200);
    const seen = await client.waitForEnd(created.body.jobId, 120_000, 200);
    const job = seen[seen.length - 1] as Json;
    expect(job.status).toBe('failed');
    expect(job.error).toMatch(/5 rows to validate and 3 validations are left/);
    expect(job.estimate).toBeNull();
    const usage = await call('GET', '/v1/usage', { key: company.apiKey });
    expect(usage.body.used.bulk).toBe(0);
  });

  test('is sampled, completed and counted once when its S3 event arrives several times at once', async () => {
    // Each delivery reads and samples the upload while it tries to start the job; one starts it.
    const before = await usedBulk();
    const created = await call('POST', '/v1/email/validate-file', {
      body: { emailColumn: 1, estimate: true },
    });
    expect((await bulk.client.upload(created.body.uploadUrl, Buffer.from(smallFile))).status).toBe(200);
    const event = uploadEvent(created.body.jobId, smallFile.length);
    await Promise.all([1, 2, 3].map(() => bulk.runtime.runtime.invoke('startProcessing', event)));
    const job = await waitForEnd(created.body.jobId);
    expect(job).toMatchObject({ status: 'completed', totalEmails: 5 });
    expect(job.estimate).toMatchObject({ rows: 5, sampled: 5 });
    expect(await usedBulk()).toBe(before + 5);
    await bulk.runtime.runtime.invoke('startProcessing', event);
    expect(await usedBulk()).toBe(before + 5);
  });

  test('fails with the reason and nothing counted when its upload is not CSV text', async () => {
    // The file is read and sampled while the job starts: its refusal waits for the job to be processing.
    const before = await usedBulk();
    const job = await runJob('id,email\n1,ann@ok.test\n2,\u0000\u0001\n', { emailColumn: 1, estimate: true });
    expect(job).toMatchObject({ status: 'failed', error: binaryDataError });
    expect(job.estimate).toBeNull();
    expect(await usedBulk()).toBe(before);
  });

  test('/run: one run per estimate (Idempotency-Key replays it), then 409; the estimate names its run', async () => {
    const job = await runJob(smallFile, { emailColumn: 1, estimate: true });
    const key = { 'idempotency-key': `run-${job.jobId}` };
    const first = await call('POST', `/v1/email/validate-file/${job.jobId}/run`, { headers: key });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ status: 'awaiting_upload', uploadExpiresIn: expect.any(Number) });
    const replay = await call('POST', `/v1/email/validate-file/${job.jobId}/run`, { headers: key });
    expect(replay).toEqual(first);
    const again = await call('POST', `/v1/email/validate-file/${job.jobId}/run`);
    expect(again.status).toBe(409);
    expect(again.body.error).toMatch(/already run/);
    expect((await call('GET', `/v1/email/validate-file/${job.jobId}`)).body.runJobId).toBe(first.body.jobId);

    const full = await waitForEnd(first.body.jobId);
    expect(full).toMatchObject({ status: 'completed', totalEmails: 5 });
    expect(full.statistics).toEqual(job.estimate.statistics);
    expect(full.estimate).toBeUndefined();
    // the full run has a results file
    expect((await call('GET', `/v1/email/validate-file/${first.body.jobId}/download`)).status).toBe(200);
  });

  test('/run refuses what is not a completed estimate of the company', async () => {
    const plain = await runJob(smallFile, { emailColumn: 1 });
    expect(plain.estimate).toBeUndefined();
    const notEstimate = await call('POST', `/v1/email/validate-file/${plain.jobId}/run`);
    expect(notEstimate.status).toBe(409);
    expect(notEstimate.body.error).toMatch(/Only an estimate can be run/);

    const waiting = await call('POST', '/v1/email/validate-file', {
      body: { emailColumn: 1, estimate: true },
    });
    expect(waiting.status).toBe(202);
    const early = await call('POST', `/v1/email/validate-file/${waiting.body.jobId}/run`);
    expect(early).toEqual({ status: 409, body: { error: 'Job is not completed' } });
    const waitingView = await call('GET', `/v1/email/validate-file/${waiting.body.jobId}`);
    expect(waitingView.body.estimate).toBeNull();
    expect((await call('GET', `/v1/email/validate-file/${waiting.body.jobId}/download`)).body).toEqual({
      error: 'Job is not completed',
    });

    const estimate = await runJob(smallFile, { emailColumn: 1, estimate: true });
    const other = await call('POST', `/v1/email/validate-file/${estimate.jobId}/run`, {
      key: bulk.runtime.keys.other,
    });
    expect(other).toEqual({ status: 404, body: { error: 'Job not found' } });
    const unknown = await call('POST', '/v1/email/validate-file/00000000-0000-4000-8000-000000000000/run');
    expect(unknown).toEqual({ status: 404, body: { error: 'Job not found' } });

    const bad = await call('POST', '/v1/email/validate-file', { body: { emailColumn: 1, estimate: 'yes' } });
    expect(bad).toEqual({ status: 400, body: { error: 'estimate must be true or false' } });
  });
});
