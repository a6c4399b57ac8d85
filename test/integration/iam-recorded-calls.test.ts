// The recorded-call check on a real local runtime: calls are attributed to the function whose invocation
// made them, and a filtered download as it was first written (a HEAD of the missing copy) is refused by
// downloadJob's role as it was then (no listing at all) and as it is now (listing limited to results/,
// which a HEAD does not carry), while the listing that replaced it is allowed now and was not then.
import { HeadObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { runAsFunction, type AwsCall } from '../../functions/clients/call-recording';
import { bucketName, s3 } from '../../functions/clients/s3';
import { describeRefused, refusedCalls, unusedGrants, type PolicyStatement } from '../../local/iam/evaluate';
import { localResources } from '../../local/runtime';
import { functionPolicies, usedPermissions } from '../helpers/iam-check';
import { functions } from '../../functions/wiring';
import { BulkClient, buildCsv, startBulkDns } from '../e2e/bulk-client';
import { fixtureDnsSettings, startTestRuntime, type TestRuntime } from '../helpers/local-runtime';
import type { FixtureDns } from '../unit/validation/fixtures/dns-server';

let runtime: TestRuntime;
let dns: FixtureDns;

beforeAll(async () => {
  dns = await startBulkDns();
  runtime = await startTestRuntime({ ...fixtureDnsSettings(dns), CHUNK_SIZE_BYTES: '64' });
});
afterAll(async () => {
  await runtime?.stop();
  await dns?.close();
});

/** Runs `work` as `fn` and takes the calls it made out of the runtime's record (stop() checks the rest). */
async function callsOf(fn: string, work: () => Promise<unknown>): Promise<AwsCall[]> {
  const before = runtime.runtime.awsCalls.length;
  await runAsFunction(fn, work).catch(() => undefined);
  return runtime.runtime.awsCalls.splice(before);
}

const missingCopy = 'results/0a0c3e00-0000-4000-8000-000000000001/no-such-job.safe.csv';

/** downloadJob's statements as the role had them before the fix: nothing may list the bucket. */
function downloadJobBeforeTheFix(): PolicyStatement[] {
  return functionPolicies()
    .downloadJob!.map((s) => ({ ...s, Action: [s.Action ?? []].flat().filter((a) => a !== 's3:ListBucket') }))
    .filter((s) => s.Action.length > 0);
}

it("attributes an API request's calls to the route's function", async () => {
  const before = runtime.runtime.awsCalls.length;
  const response = await fetch(`${runtime.baseUrl}/v1/usage`, {
    headers: { 'x-api-key': runtime.keys.admin },
  });
  expect(response.status).toBe(200);
  const calls = runtime.runtime.awsCalls.slice(before);
  expect(calls.length).toBeGreaterThan(0);
  expect(new Set(calls.map((c) => c.function))).toEqual(new Set(['getUsage']));
  expect(calls.map((c) => c.operation)).toContain('GetItem');
});

it('refuses the HEAD of a missing copy, before the fix and now; allows the listing now only', async () => {
  const head = await callsOf('downloadJob', () =>
    s3().send(new HeadObjectCommand({ Bucket: bucketName(), Key: missingCopy })),
  );
  expect(head).toEqual([
    expect.objectContaining({ function: 'downloadJob', operation: 'HeadObject', status: 404 }),
  ]);
  const before = { downloadJob: downloadJobBeforeTheFix() };
  const now = functionPolicies();
  const refusedBefore = refusedCalls(head, before, localResources);
  expect(describeRefused(refusedBefore)).toBe(
    `downloadJob: HeadObject needs s3:ListBucket on arn:aws:s3:::${localResources.bucket} ` +
      '(HeadObject of a missing key answers 403, not 404, without s3:ListBucket)',
  );
  expect(refusedCalls(head, now, localResources).map((r) => r.permission.action)).toEqual(['s3:ListBucket']);

  const listing = await callsOf('downloadJob', () =>
    s3().send(new ListObjectsV2Command({ Bucket: bucketName(), Prefix: missingCopy, MaxKeys: 1 })),
  );
  expect(listing).toEqual([expect.objectContaining({ operation: 'ListObjectsV2', status: 200 })]);
  expect(refusedCalls(listing, now, localResources)).toEqual([]);
  expect(refusedCalls(listing, before, localResources).map((r) => r.permission.action)).toEqual([
    's3:ListBucket',
  ]);
});

it("refuses a function's call outside what the wiring gives it", async () => {
  const calls = await callsOf('getJob', () =>
    s3().send(new ListObjectsV2Command({ Bucket: bucketName(), Prefix: 'uploads/' })),
  );
  expect(refusedCalls(calls, functionPolicies(), localResources)).toEqual([
    expect.objectContaining({ function: 'getJob', operation: 'ListObjectsV2' }),
  ]);
});

// Least privilege from the other side: what the bulk functions may do to the bucket, a plain job uses.
// Only failure paths are left out: aborting a multipart upload (and listing its parts), and reading an
// older version (the local bucket keeps none).
it('a bulk job, its filtered download, its deletion and an estimate run in full use every S3 grant of the bulk functions', async () => {
  const client = new BulkClient(runtime.baseUrl, runtime.keys.admin);
  const rows = [
    ['email'],
    ...Array.from({ length: 12 }, (_, i) => [i % 3 ? `user${i}@ok.test` : `x${i}@no.test`]),
    // a repeated address: the scan writes the job's duplicate pairs beside its parts
    ['user1@ok.test'],
  ];
  const { input } = buildCsv({ delimiter: ',', rows, header: true, emailColumn: 0 });
  const from = runtime.runtime.awsCalls.length;
  const run = await client.run(input, { emailColumn: 0 });
  expect(run.final.status).toBe('completed');
  // The upload URL is signed by createJob's role (a presign, nothing sent), and the role must allow it.
  expect(runtime.runtime.awsCalls.slice(from)).toContainEqual(
    expect.objectContaining({ function: 'createJob', operation: 'PutObject', presigned: true }),
  );
  const filtered = await client.request('GET', `/v1/email/validate-file/${run.jobId}/download?status=safe`);
  expect(filtered.status).toBe(200);
  expect((await client.request('DELETE', `/v1/email/validate-file/${run.jobId}`)).status).toBe(204);
  // an estimate, run in full: the run copies the estimate's upload
  const estimate = await client.run(input, { emailColumn: 0, estimate: true });
  expect(estimate.final.status).toBe('completed');
  const started = await client.request('POST', `/v1/email/validate-file/${estimate.jobId}/run`);
  expect(started.status).toBe(201);
  const full = await client.waitForEnd(((await started.json()) as { jobId: string }).jobId);
  expect(full.at(-1)!.status).toBe('completed');

  const bulkFunctions = new Set(
    functions
      .filter((f) => f.access.bucketRead || f.access.bucketWrite || f.access.bucketDelete)
      .map((f) => f.name),
  );
  const policies = Object.fromEntries(
    Object.entries(functionPolicies()).filter(([name]) => bulkFunctions.has(name)),
  );
  const failureOnly = ['s3:AbortMultipartUpload', 's3:ListMultipartUploadParts', 's3:GetObjectVersion'];
  const unused = unusedGrants(usedPermissions(runtime.runtime.awsCalls.slice(from)), policies).filter(
    (g) => g.action.startsWith('s3:') && !failureOnly.includes(g.action),
  );
  expect(unused).toEqual([]);
  expect([...bulkFunctions].sort()).toEqual([
    'createJob',
    'deleteJob',
    'downloadJob',
    'runEstimate',
    'startProcessing',
    'validateChunk',
  ]);
});
