// The estimate routes as handlers over mocked AWS clients: POST .../run copies the estimate's upload to a
// new job with the estimate's options; an estimate's view carries its projection and its download is 409.
import { CopyObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { handler as downloadJob } from '../../functions/handlers/download-job';
import { handler as getJob } from '../../functions/handlers/get-job';
import { handler as runEstimate } from '../../functions/handlers/run-estimate';
import { jobKey } from '../../functions/store/keys';
import { apiEvent, lambdaContext } from '../../local/events';
import { itemId as id, mockItemStore } from '../helpers/mocked-store';

const ddb = mockClient(DynamoDBDocumentClient);
const s3 = mockClient(S3Client);
const key = 'mv_live_estimate';
const principal = { companyId: 'c1', userId: 'u1', userEmail: 'a@x.test', keyId: 'k1' };
const jobId = '5f0c1a9e-2b7d-4c1e-9f3a-0d6b8e7c4a21';
const statistics = { safe: 600, block_bounce_risk: 300, some_risk: 50, dead_email: 0, do_not_mail_abuse: 50 };

let items: Map<string, Record<string, unknown>>;
let uploadExists: boolean;

function store(extra: Record<string, unknown>): void {
  items.set(id(jobKey('c1', jobId)), {
    ...jobKey('c1', jobId),
    entity: 'job',
    jobId,
    companyId: 'c1',
    status: 'completed',
    emailColumn: 2,
    fileName: 'leads.csv',
    callbackUrl: 'https://hooks.example.com/x',
    createdAt: new Date(Date.now() - 120_000).toISOString(),
    completedAt: new Date(Date.now() - 60_000).toISOString(),
    uploadExpiresAtMs: Date.now() + 60_000,
    slot: 0,
    totalEmails: 1000,
    processedEmails: 1000,
    counts: statistics,
    statistics: { safe: 60, block_bounce_risk: 30, some_risk: 5, dead_email: 0, do_not_mail_abuse: 5 },
    partKeys: {},
    partBytes: {},
    estimate: true,
    estimateResult: { rows: 1000, sampled: 100, statistics },
    ...extra,
  });
}

beforeEach(() => {
  items = mockItemStore(ddb, key, principal);
  ddb.on(QueryCommand).resolves({ Items: [] });
  uploadExists = true;
  s3.reset();
  s3.on(ListObjectsV2Command).callsFake(async (input: { Prefix: string }) => ({
    Contents: uploadExists ? [{ Key: input.Prefix }] : [],
  }));
  s3.on(CopyObjectCommand).resolves({});
});

const event = (method: 'GET' | 'POST', path: string) =>
  apiEvent({ method, path, headers: { 'x-api-key': key }, pathParameters: { jobId } });
const run = () => runEstimate(event('POST', `/v1/email/validate-file/${jobId}/run`), lambdaContext());

describe('POST /v1/email/validate-file/{jobId}/run', () => {
  it("answers 201 with a created job that copies the estimate's options and upload", async () => {
    store({});
    const result = await run();
    expect(result.statusCode).toBe(201);
    const body = JSON.parse(result.body!);
    expect(Object.keys(body)).toEqual(['jobId', 'status', 'uploadExpiresIn', 'uploadUrl']);
    expect(body.jobId).not.toBe(jobId);
    const created = items.get(id(jobKey('c1', body.jobId)));
    expect(created).toMatchObject({
      status: 'awaiting_upload',
      emailColumn: 2,
      fileName: 'leads.csv',
      callbackUrl: 'https://hooks.example.com/x',
      estimateJobId: jobId,
    });
    expect(created!.estimate).toBeUndefined();
    const copy = s3.commandCalls(CopyObjectCommand)[0]!.args[0].input;
    expect(copy.Key).toBe(`uploads/c1/${body.jobId}.csv`);
    expect(copy.CopySource).toMatch(new RegExp(`/uploads/c1/${jobId}\\.csv$`));
    // the run is claimed on the estimate, only while it has none
    const claim = ddb
      .commandCalls(UpdateCommand)
      .map((c) => c.args[0].input)
      .find((input) => input.UpdateExpression === 'SET runJobId = :run');
    expect(claim?.ConditionExpression).toContain('attribute_not_exists(runJobId)');
  });

  it('refuses a job that is no estimate, one not completed, and an estimate whose file is gone', async () => {
    store({ estimate: undefined, estimateResult: undefined });
    expect(JSON.parse((await run()).body!).error).toMatch(/^Only an estimate can be run/);
    store({ status: 'processing', completedAt: undefined });
    expect(await run()).toMatchObject({ statusCode: 409, body: '{"error":"Job is not completed"}' });
    store({ completedAt: new Date(Date.now() - 25 * 3600_000).toISOString() });
    expect((await run()).statusCode).toBe(410);
    store({});
    uploadExists = false;
    const gone = await run();
    expect(gone.statusCode).toBe(410);
    expect(JSON.parse(gone.body!).error).toMatch(/24 hours after it completes/);
    expect(s3.commandCalls(CopyObjectCommand)).toHaveLength(0);
  });

  it('answers 409 when the estimate already has a run that stands', async () => {
    const runJobId = '9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d';
    store({ runJobId });
    items.set(id(jobKey('c1', runJobId)), {
      ...jobKey('c1', runJobId),
      entity: 'job',
      jobId: runJobId,
      companyId: 'c1',
      status: 'processing',
      emailColumn: 2,
      createdAt: new Date().toISOString(),
      uploadExpiresAtMs: Date.now() + 60_000,
      slot: 1,
      totalEmails: 0,
      processedEmails: 0,
      counts: statistics,
      partKeys: {},
      partBytes: {},
    });
    const again = await run();
    expect(again.statusCode).toBe(409);
    expect(JSON.parse(again.body!).error).toMatch(/already run in full/);
  });
});

describe('an estimate job', () => {
  it('shows its projection and its run; its download is 409 with a clear sentence', async () => {
    store({ runJobId: '9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d' });
    const view = JSON.parse(
      (await getJob(event('GET', `/v1/email/validate-file/${jobId}`), lambdaContext())).body!,
    );
    expect(view.estimate).toEqual({ rows: 1000, sampled: 100, statistics });
    expect(view.runJobId).toBe('9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d');
    const download = await downloadJob(
      event('GET', `/v1/email/validate-file/${jobId}/download`),
      lambdaContext(),
    );
    expect(download.statusCode).toBe(409);
    expect(JSON.parse(download.body!).error).toMatch(/^This job is an estimate and has no results file/);
  });
});
