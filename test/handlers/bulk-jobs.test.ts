import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import type { JobItem } from '../../functions/store/jobs/item';
import { handler as createJob } from '../../functions/handlers/create-job';
import { handler as downloadJob } from '../../functions/handlers/download-job';
import { handler as getJob } from '../../functions/handlers/get-job';
import { jobKey } from '../../functions/store/keys';
import { apiEvent, lambdaContext } from '../../local/events';
import { itemId as id, mockItemStore } from '../helpers/mocked-store';

const ddb = mockClient(DynamoDBDocumentClient);
const s3 = mockClient(S3Client);
const key = 'mv_live_bulk';
const principal = { companyId: 'c1', userId: 'u1', userEmail: 'a@x.test', keyId: 'k1' };

/** Items by pk|sk, written by the handlers (job creation: the job's put and its day count in one transaction). */
let items: Map<string, Record<string, unknown>>;

beforeEach(() => {
  items = mockItemStore(ddb, key, principal);
  s3.reset();
  // Every object asked about exists: the listing of its key finds the key itself.
  s3.on(ListObjectsV2Command).callsFake(async (input: { Prefix: string }) => ({
    Contents: [{ Key: input.Prefix }],
  }));
});

const post = (body: unknown) =>
  createJob(
    apiEvent({
      method: 'POST',
      path: '/v1/email/validate-file',
      headers: { 'x-api-key': key },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    }),
    lambdaContext(),
  );
const get = (jobId: string, download = false) =>
  (download ? downloadJob : getJob)(
    apiEvent({
      method: 'GET',
      path: `/v1/email/validate-file/${jobId}${download ? '/download' : ''}`,
      headers: { 'x-api-key': key },
      pathParameters: { jobId },
    }),
    lambdaContext(),
  );

describe('POST /v1/email/validate-file', () => {
  it.each([
    [{}, 'emailColumn is required'],
    [{ emailColumn: 'a' }, 'emailColumn must be a non-negative integer'],
    [{ emailColumn: -1 }, 'emailColumn must be a non-negative integer'],
    [{ emailColumn: 2.5 }, 'emailColumn must be a non-negative integer'],
    [{ emailColumn: 1001 }, 'emailColumn must be 1000 or less'],
    [{ emailColumn: 0, fileName: '' }, 'fileName must be a non-empty string'],
    [{ emailColumn: 0, fileName: `${'a'.repeat(252)}.csv` }, 'fileName must be 255 characters or less'],
    [{ emailColumn: 0, fileName: 'list.xlsx' }, 'fileName must end in .csv'],
    [{ emailColumn: 0, callbackUrl: 'not a url' }, 'Invalid callbackUrl'],
  ])('rejects %j with the exact text', async (body, error) => {
    const result = await post(body);
    expect(result.statusCode).toBe(400);
    expect(result.body).toBe(JSON.stringify({ error }));
  });

  it('answers 202 with a presigned PUT that signs content-type text/csv', async () => {
    const result = await post({
      emailColumn: 1,
      fileName: 'leads.csv',
      callbackUrl: 'https://hooks.example.com/x',
    });
    expect(result.statusCode).toBe(202);
    const body = JSON.parse(result.body!);
    expect(Object.keys(body)).toEqual(['jobId', 'status', 'uploadExpiresIn', 'uploadUrl']);
    expect(body).toMatchObject({ status: 'awaiting_upload', uploadExpiresIn: 300 });
    const url = new URL(body.uploadUrl);
    expect(url.pathname).toContain(`uploads/c1/${body.jobId}.csv`);
    expect(url.searchParams.get('X-Amz-Expires')).toBe('300');
    expect(url.searchParams.get('X-Amz-SignedHeaders')).toContain('content-type');
    const job = items.get(id(jobKey('c1', body.jobId))) as unknown as JobItem;
    expect(job).toMatchObject({
      status: 'awaiting_upload',
      emailColumn: 1,
      fileName: 'leads.csv',
      callbackUrl: 'https://hooks.example.com/x',
    });
  });
});

describe('GET /v1/email/validate-file/{jobId}', () => {
  const jobId = '0b8f4a4e-7a43-4a53-9a37-9e7f3c2f1d10';
  const stored = (extra: Partial<JobItem>) =>
    items.set(id(jobKey('c1', jobId)), {
      ...jobKey('c1', jobId),
      entity: 'job',
      jobId,
      companyId: 'c1',
      status: 'processing',
      emailColumn: 0,
      createdAt: '2026-01-01T00:00:00.000Z',
      uploadExpiresAtMs: Date.now() + 60_000,
      slot: 0,
      totalEmails: 0,
      processedEmails: 0,
      counts: { safe: 0, block_bounce_risk: 0, some_risk: 0, dead_email: 0, do_not_mail_abuse: 0 },
      partKeys: {},
      partBytes: {},
      ...extra,
    });

  it('answers 404 for an unknown job and for a malformed id', async () => {
    for (const unknown of [jobId, 'nope', '../../x']) {
      const result = await get(unknown);
      expect(result).toMatchObject({ statusCode: 404, body: '{"error":"Job not found"}' });
    }
  });

  it('reports progress while chunks finish', async () => {
    stored({ totalEmails: 200, processedEmails: 50, chunkCount: 4, doneChunks: new Set([0]) });
    const body = JSON.parse((await get(jobId)).body!);
    expect(body).toEqual({
      completedAt: null,
      createdAt: '2026-01-01T00:00:00.000Z',
      duplicateEmails: 0,
      jobId,
      percentComplete: 25,
      processedEmails: 50,
      statistics: null,
      status: 'processing',
      totalEmails: 200,
      unprobedEmails: 0,
    });
  });

  it('reads an awaiting job whose upload URL expired as expired', async () => {
    stored({ status: 'awaiting_upload', uploadExpiresAtMs: Date.now() - 1 });
    expect(JSON.parse((await get(jobId)).body!).status).toBe('expired');
  });

  it('fails a processing job past its deadline', async () => {
    stored({ deadlineAtMs: Date.now() - 1 });
    const body = JSON.parse((await get(jobId)).body!);
    expect(body.status).toBe('failed');
    expect(body.error).toMatch(/Create a new job/);
    expect(
      ddb
        .commandCalls(UpdateCommand)
        .some((c) => c.args[0].input.ConditionExpression?.includes('deadlineAtMs')),
    ).toBe(true);
  });

  it('shows all five statistics of a completed job', async () => {
    const statistics = { safe: 3, block_bounce_risk: 1, some_risk: 0, dead_email: 0, do_not_mail_abuse: 1 };
    const completedAt = new Date(Date.now() - 60_000).toISOString();
    stored({ status: 'completed', totalEmails: 5, processedEmails: 5, completedAt, statistics });
    const body = JSON.parse((await get(jobId)).body!);
    expect(body).toMatchObject({ status: 'completed', percentComplete: 100, statistics, completedAt });
  });

  it('reads expired 30 days after the day of its completion, with its statistics and a clear error; the download is 410', async () => {
    const statistics = { safe: 3, block_bounce_risk: 1, some_risk: 0, dead_email: 0, do_not_mail_abuse: 1 };
    // Retention counts whole UTC days: 30 days after the end of the completion day.
    const completedAt = new Date(Date.now() - 31 * 86400_000).toISOString();
    stored({
      status: 'completed',
      totalEmails: 5,
      processedEmails: 5,
      completedAt,
      statistics,
      resultKey: `results/c1/${jobId}.csv`,
    });
    expect(JSON.parse((await get(jobId)).body!)).toMatchObject({
      status: 'expired',
      statistics,
      completedAt,
      error:
        'The results were deleted 30 days after the job completed. Create a new job to validate the file again.',
    });
    expect(await get(jobId, true)).toMatchObject({
      statusCode: 410,
      body: '{"error":"The results were deleted 30 days after the job completed. Create a new job to validate the file again."}',
    });
  });

  it('answers 410, not a dead link, when the results object is gone', async () => {
    stored({
      status: 'completed',
      completedAt: new Date().toISOString(),
      resultKey: `results/c1/${jobId}.csv`,
    });
    // Only other keys under the prefix (a copy named after it), never the key itself.
    s3.on(ListObjectsV2Command).resolves({ Contents: [{ Key: `results/c1/${jobId}.csv.safe.csv` }] });
    expect((await get(jobId, true)).statusCode).toBe(410);
  });

  it('answers 409 for the download of a job that is not completed', async () => {
    stored({});
    expect(await get(jobId, true)).toMatchObject({
      statusCode: 409,
      body: '{"error":"Job is not completed"}',
    });
  });

  it('answers 404 for the download of an unknown job', async () => {
    expect(await get(jobId, true)).toMatchObject({ statusCode: 404, body: '{"error":"Job not found"}' });
  });

  it('presigns the results download for an hour under the docs/api.md file name', async () => {
    stored({
      status: 'completed',
      completedAt: new Date().toISOString(),
      fileName: 'Q3 leads.csv',
      resultKey: `results/c1/${jobId}.csv`,
    });
    const body = JSON.parse((await get(jobId, true)).body!);
    expect(body).toMatchObject({
      jobId,
      expiresIn: 3600,
      format: 'csv',
      fileName: 'Q3 leads_processed_by_mailvet.csv',
    });
    const url = new URL(body.downloadUrl);
    expect(url.searchParams.get('X-Amz-Expires')).toBe('3600');
    expect(url.searchParams.get('response-content-disposition')).toBe(
      'attachment; filename="Q3 leads_processed_by_mailvet.csv"',
    );
  });

  it('names the results after the job id when no fileName was given', async () => {
    stored({
      status: 'completed',
      completedAt: new Date().toISOString(),
      resultKey: `results/c1/${jobId}.csv`,
    });
    const body = JSON.parse((await get(jobId, true)).body!);
    expect(body.fileName).toBe(`${jobId}_processed_by_mailvet.csv`);
  });
});
