// A resolver that answers NXDOMAIN for every name (filtered office and CI networks, captive portals),
// through the API: the sync and async single endpoints and a bulk job read gmail.com as some_risk /
// dns_unavailable, never as a non-existent domain; abuse@ stays do_not_mail_abuse.
import { BulkClient } from '../e2e/bulk-client';
import { fixtureDnsSettings, startTestRuntime, type TestRuntime } from '../helpers/local-runtime';
import {
  fixtureCanaryDomain,
  startFixtureDns,
  type FixtureDns,
} from '../unit/validation/fixtures/dns-server';

jest.setTimeout(120_000);

let dns: FixtureDns;
let local: TestRuntime;
let client: BulkClient;

beforeAll(async () => {
  dns = await startFixtureDns({}, { withoutCanary: true });
  local = await startTestRuntime({
    ...fixtureDnsSettings(dns),
    DNS_CANARY_DOMAINS: `${fixtureCanaryDomain},gmail.com`,
    RATE_LIMIT_PER_SECOND: '1000',
  });
  client = new BulkClient(local.baseUrl, local.keys.admin);
});

afterAll(async () => {
  await local?.stop();
  await dns?.close();
});

interface ResultBody {
  result: { status: string; reason: string; subStatus: string | null };
}

async function pollResult(pollUrl: string): Promise<ResultBody> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const response = await client.request('GET', pollUrl);
    if (response.status === 200) return (await response.json()) as ResultBody;
    await response.body?.cancel();
    if (response.status !== 202 || Date.now() > deadline) throw new Error(`poll answered ${response.status}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('a resolver that answers NXDOMAIN for every name', () => {
  it('POST /v1/email/validate: someone@gmail.com is some_risk / dns_unavailable, abuse@ stays abuse', async () => {
    const someone = await client.request('POST', '/v1/email/validate', { email: 'someone@gmail.com' });
    expect(someone.status).toBe(200);
    expect(((await someone.json()) as ResultBody).result).toEqual({
      status: 'some_risk',
      reason: 'dns_unavailable',
      subStatus: 'no_such_domain',
    });
    const abuse = await client.request('POST', '/v1/email/validate', { email: 'abuse@gmail.com' });
    expect(((await abuse.json()) as ResultBody).result).toMatchObject({
      status: 'do_not_mail_abuse',
      reason: 'role_abuse',
    });
  });

  it('POST /v1/email/validate-async gives the same verdicts', async () => {
    for (const [email, status] of [
      ['someone@gmail.com', 'some_risk'],
      ['abuse@gmail.com', 'do_not_mail_abuse'],
    ] as const) {
      const accepted = await client.request('POST', '/v1/email/validate-async', { email });
      expect(accepted.status).toBe(202);
      const { pollUrl } = (await accepted.json()) as { pollUrl: string };
      expect((await pollResult(pollUrl)).result.status).toBe(status);
    }
  });

  it('a bulk job reads every domain as dns_unavailable, not block_bounce_risk', async () => {
    const csv = 'email\nsomeone@gmail.com\nabuse@gmail.com\nann@example-corp.test\nnot-an-address\n';
    const run = await client.run(Buffer.from(csv), { emailColumn: 0 });
    expect(run.final.status).toBe('completed');
    expect(run.final.statistics).toEqual({
      block_bounce_risk: 1, // the row without an address: syntax verdicts stand
      dead_email: 0,
      do_not_mail_abuse: 1,
      safe: 0,
      some_risk: 2,
    });
    const descriptor = await client.request(
      'GET',
      `/v1/email/validate-file/${run.jobId}/download?columns=status,reason`,
    );
    const { downloadUrl } = (await descriptor.json()) as { downloadUrl: string };
    const lines = (await (await fetch(downloadUrl)).text()).trim().split('\n');
    expect(lines.slice(1)).toEqual([
      'someone@gmail.com,some_risk,dns_unavailable',
      'abuse@gmail.com,do_not_mail_abuse,role_abuse',
      'ann@example-corp.test,some_risk,dns_unavailable',
      'not-an-address,block_bounce_risk,invalid_syntax',
    ]);
  });
});
