// The recorded-call check on a real local runtime: calls are attributed to the function whose invocation
// made them, and a filtered download as it was first written (a HEAD of the missing copy) is refused by
// downloadJob's role as it was then (no listing at all) and as it is now (listing limited to results/,
// which a HEAD does not carry), while the listing that replaced it is allowed now and was not then.
import { HeadObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { runAsFunction, type AwsCall } from '../../functions/clients/call-recording';
import { bucketName, s3 } from '../../functions/clients/s3';
import { describeRefused, refusedCalls, type PolicyStatement } from '../../local/iam/evaluate';
import { localResources } from '../../local/runtime';
import { functionPolicies } from '../helpers/iam-check';
import { startTestRuntime, type TestRuntime } from '../helpers/local-runtime';

let runtime: TestRuntime;

beforeAll(async () => {
  runtime = await startTestRuntime();
});
afterAll(async () => {
  await runtime?.stop();
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
