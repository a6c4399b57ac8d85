// Slow but working DNS through the API (issue #33): the local runtime's resolver is Unbound (recursive,
// stock settings) in front of NSD, with name servers that answer late. A deliverable domain whose only
// name server answers a second late, or so late that a cold Unbound needs longer than DNS_TIMEOUT_MS,
// is `safe` on the sync endpoint and in a bulk job alike (bulk asks the timed-out domains again in a
// retry round of the chunk); `timeoutMs` cuts the sync and batch wait short with the 202 answer.
import { BulkClient } from '../../e2e/bulk-client';
import { startTestRuntime, type TestRuntime } from '../../helpers/local-runtime';
import {
  startAuthoritative,
  startDelayProxy,
  startUnbound,
  type RunningDns,
} from '../../helpers/real-servers/dns';

jest.setTimeout(120_000);

const at = (n: number) => `127.0.53.${n}`;

const zones = {
  // the only name server answers a second late
  'slow.example': '@ MX 10 mx1\nmx1 A 127.0.53.50',
  // the only name server answers 2 s late: Unbound, cold, has the answer after ~4.5 s (its own
  // retransmissions, 376 ms, 752 ms, 1.5 s, 3 s apart, meet the late answers)
  'cold.example': '@ MX 10 mx1\nmx1 A 127.0.53.51',
  // 3 s late: an answer after ~6 s a question
  'wait.example': '@ MX 10 mx1\nmx1 A 127.0.53.52',
};

let nsd: RunningDns;
let slow: RunningDns;
let cold: RunningDns;
let colder: RunningDns;
let unbound: RunningDns;
let local: TestRuntime;
let client: BulkClient;

/** Unbound with nothing cached, on the same address (the runtime's DNS_SERVERS). */
async function freshUnbound(): Promise<void> {
  await unbound?.stop();
  unbound = await startUnbound({
    address: at(11),
    stubZones: { 'slow.example': [slow], 'cold.example': [cold], 'wait.example': [colder] },
  });
}

beforeAll(async () => {
  nsd = await startAuthoritative({ address: at(12), zones });
  slow = await startDelayProxy({ address: at(13), upstream: nsd, delayMs: 1000 });
  cold = await startDelayProxy({ address: at(14), upstream: nsd, delayMs: 2000 });
  colder = await startDelayProxy({ address: at(15), upstream: nsd, delayMs: 3000 });
  await freshUnbound();
  local = await startTestRuntime({
    DNS_SERVERS: unbound.server,
    ALLOW_PRIVATE_MX: 'true',
    DNS_RETRY_DELAY_SECONDS: '2',
    RATE_LIMIT_PER_SECOND: '1000',
  });
  client = new BulkClient(local.baseUrl, local.keys.admin);
});

afterAll(async () => {
  await local?.stop();
  for (const s of [unbound, colder, cold, slow, nsd]) await s?.stop();
});

type Verdict = { status: string; reason: string };

async function syncVerdict(email: string): Promise<Verdict> {
  const response = await client.request('POST', '/v1/email/validate', { email });
  expect(response.status).toBe(200);
  const { result } = (await response.json()) as { result: Verdict };
  return { status: result.status, reason: result.reason };
}

async function bulkVerdicts(emails: string[]): Promise<Verdict[]> {
  const run = await client.run(Buffer.from(`email\n${emails.join('\n')}\n`), { emailColumn: 0 });
  expect(run.final.status).toBe('completed');
  const descriptor = await client.request(
    'GET',
    `/v1/email/validate-file/${run.jobId}/download?columns=status,reason`,
  );
  const { downloadUrl } = (await descriptor.json()) as { downloadUrl: string };
  const lines = (await (await fetch(downloadUrl)).text()).trim().split('\n').slice(1);
  return lines.map((line) => {
    const [, status, reason] = line.split(',');
    return { status: status!, reason: reason! };
  });
}

const safe: Verdict = { status: 'safe', reason: 'domain_ok' };

it('gives a slow but deliverable domain the same verdict, safe, in a bulk job and on the sync endpoint', async () => {
  // each path meets a cold resolver, as the first address of a domain does
  expect(await bulkVerdicts(['ann@slow.example', 'bob@cold.example'])).toEqual([safe, safe]);
  await freshUnbound();
  expect(await syncVerdict('ann@slow.example')).toEqual(safe);
  expect(await syncVerdict('bob@cold.example')).toEqual(safe);
});

it('answers 202 when the body timeoutMs passes before the verdict, sync and batch, and refuses a bad one', async () => {
  await freshUnbound();
  const started = performance.now();
  const single = await client.request('POST', '/v1/email/validate', {
    email: 'carol@wait.example',
    timeoutMs: 1000,
  });
  expect(single.status).toBe(202);
  expect(performance.now() - started).toBeLessThan(10_000);
  const accepted = (await single.json()) as { pollUrl: string; requestId: string };
  expect(accepted.pollUrl).toContain(accepted.requestId);

  const batch = await client.request('POST', '/v1/email/validate-batch', {
    emails: ['dave@wait.example', 'safe@mailvet.test'],
    timeoutMs: 500,
  });
  expect(batch.status).toBe(200);
  const { results } = (await batch.json()) as { results: Array<Record<string, unknown>> };
  expect(results[0]).toMatchObject({ email: 'dave@wait.example', pollUrl: expect.any(String) });
  expect(results[1]).toHaveProperty('result');

  for (const timeoutMs of [0, -5, 1.5, 'soon']) {
    const bad = await client.request('POST', '/v1/email/validate', { email: 'a@slow.example', timeoutMs });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toBe(
      'timeoutMs must be an integer from 1 to 300000',
    );
  }
});
