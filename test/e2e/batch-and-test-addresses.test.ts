// The batch call and the test addresses at mailvet.test, through the public API with the typed client
// (client/) against the local runtime: every answer is checked against docs/openapi.json.
import { createMailvetClient, isPendingItem, MailvetApiError, type MailvetClient } from '../../client';
import { onboardCompany, parseOnboardingInput } from '../../functions/domain/accounts/onboarding';
import { expectDocumented } from '../helpers/openapi-check';
import { fixtureDnsSettings, startTestRuntime, type TestRuntime } from '../helpers/local-runtime';
import type { FixtureDns } from '../unit/validation/fixtures/dns-server';
import { BulkClient, startBulkDns } from './bulk-client';

jest.setTimeout(120_000);

/** Short, so `slow@` goes over it quickly; the other addresses need no more than a local DNS answer. */
const SYNC_BUDGET_MS = 2000;

let dns: FixtureDns;
let local: TestRuntime;

beforeAll(async () => {
  dns = await startBulkDns();
  local = await startTestRuntime({
    ...fixtureDnsSettings(dns, 1000),
    SYNC_BUDGET_MS: String(SYNC_BUDGET_MS),
    RATE_LIMIT_PER_SECOND: '100000',
  });
});

afterAll(async () => {
  await local?.stop();
  await dns?.close();
});

/** A client whose every API answer must match docs/openapi.json. */
function clientFor(apiKey: string): MailvetClient {
  const apiOrigin = new URL(local.baseUrl).origin;
  const checked: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    const response = await fetch(request);
    const url = new URL(request.url);
    if (url.origin === apiOrigin) await expectDocumented(request.method, url.pathname, response);
    return response;
  };
  return createMailvetClient({ baseUrl: local.baseUrl, apiKey, maxRetries: 0, fetch: checked });
}

/** A fresh company: its usage starts at zero, whatever other tests did. */
async function freshCompany(monthlyQuota = 1000): Promise<MailvetClient> {
  const n = Math.random().toString(36).slice(2, 8);
  const company = await onboardCompany(
    parseOnboardingInput({ name: `Batch ${n}`, adminEmail: `ops@${n}.example`, monthlyQuota }),
  );
  return clientFor(company.apiKey);
}

/** Every test address with the verdict the docs promise. */
const TEST_ADDRESSES: [string, string, string][] = [
  ['safe@mailvet.test', 'safe', 'accepted'],
  ['catch-all@mailvet.test', 'safe', 'catch_all'],
  ['bounce@mailvet.test', 'block_bounce_risk', 'mailbox_not_found'],
  ['disabled@mailvet.test', 'block_bounce_risk', 'mailbox_disabled'],
  ['dead@mailvet.test', 'dead_email', 'known_dead'],
  ['abuse@mailvet.test', 'do_not_mail_abuse', 'role_abuse'],
  ['full@mailvet.test', 'some_risk', 'mailbox_full'],
  ['greylisted@mailvet.test', 'some_risk', 'greylisted'],
  ['slow@mailvet.test', 'safe', 'accepted'],
  ['Safe+signup-42@MailVet.Test', 'safe', 'accepted'],
  ['BOUNCE+x@mailvet.test', 'block_bounce_risk', 'mailbox_not_found'],
  ['nobody@mailvet.test', 'block_bounce_risk', 'mailbox_not_found'],
];

const verdictOf = (result: { result: { status: string; reason: string } }) => [
  result.result.status,
  result.result.reason,
];

describe('POST /v1/email/validate-batch', () => {
  it('answers in input order, mixing finished verdicts and still-running addresses', async () => {
    const client = await freshCompany();
    const emails = ['ann@ok.test', 'slow@mailvet.test', 'bob@nowhere.test', 'bounce@mailvet.test'];
    const started = Date.now();
    const { results } = await client.submitBatch(emails, { metadata: { list: 'signups' } });
    expect(Date.now() - started).toBeLessThan(SYNC_BUDGET_MS + 1500);
    expect(results.map((item) => item.email)).toEqual(emails);
    const [ann, slow, bob, bounce] = results;
    for (const done of [ann!, bob!, bounce!]) {
      if (isPendingItem(done)) throw new Error(`${done.email} should have finished within the budget`);
      expect(done.metadata).toEqual({ list: 'signups' });
    }
    expect(isPendingItem(ann!) ? null : verdictOf(ann!)).toEqual(['safe', 'domain_ok']);
    expect(isPendingItem(bob!) ? null : verdictOf(bob!)).toEqual(['block_bounce_risk', 'no_such_domain']);
    expect(isPendingItem(bounce!) ? null : verdictOf(bounce!)).toEqual([
      'block_bounce_risk',
      'mailbox_not_found',
    ]);
    // slow@ is still running: poll it as a single request
    if (!isPendingItem(slow!)) throw new Error('slow@mailvet.test should still be running');
    expect(Object.keys(slow!).sort()).toEqual(['email', 'pollUrl', 'requestId']);
    expect(slow!.pollUrl).toBe(`/v1/email/validate/${slow!.requestId}`);
    const polled = await client.waitForValidation(slow!, 30_000);
    expect(verdictOf(polled)).toEqual(['safe', 'accepted']);
    expect(polled.metadata).toEqual({ list: 'signups' });
    // completes "a few seconds after the budget", not at once and not much later
    const completedAfter = Date.parse(polled.validatedAt) - started;
    expect(completedAfter).toBeGreaterThanOrEqual(SYNC_BUDGET_MS);
    expect(completedAfter).toBeLessThan(SYNC_BUDGET_MS + 15_000);
  });

  it('validateBatch polls what is still running and returns every verdict in order', async () => {
    const client = await freshCompany();
    const results = await client.validateBatch(TEST_ADDRESSES.map(([email]) => email));
    expect(results.map(verdictOf)).toEqual(TEST_ADDRESSES.map(([, status, reason]) => [status, reason]));
  });

  it('400 for none, more than 100 or a non-string, with one message', async () => {
    const client = await freshCompany();
    const message = 'emails must be 1 to 100 strings';
    const bodies: unknown[] = [
      {},
      { emails: [] },
      { emails: 'a@ok.test' },
      { emails: ['a@ok.test', 7] },
      { emails: ['a@ok.test', null] },
      { emails: Array.from({ length: 101 }, (_, i) => `u${i}@ok.test`) },
    ];
    for (const body of bodies) {
      const answer = await client.send('POST', '/v1/email/validate-batch', body);
      expect([answer.status, await answer.json()]).toEqual([400, { error: message }]);
    }
    const badMetadata = await client.send('POST', '/v1/email/validate-batch', {
      emails: ['a@ok.test'],
      metadata: [1],
    });
    expect([badMetadata.status, await badMetadata.json()]).toEqual([
      400,
      { error: 'metadata must be a JSON object' },
    ]);
    // exactly 100 is fine
    const hundred = await client.submitBatch(Array.from({ length: 100 }, (_, i) => `safe+${i}@mailvet.test`));
    expect(hundred.results).toHaveLength(100);
  });

  it('counts each address exactly once, also with batches running at once', async () => {
    const client = await freshCompany();
    const before = await client.getUsage();
    expect(before.used.single).toBe(0);
    // 5 concurrent batches of 20 real addresses and 5 test addresses each: 100 counted, 25 not
    const batches = Array.from({ length: 5 }, (_, b) => [
      ...Array.from({ length: 20 }, (_, i) => `user${b}-${i}@ok.test`),
      ...Array.from({ length: 5 }, (_, i) => `safe+${b}-${i}@mailvet.test`),
    ]);
    const answers = await Promise.all(batches.map((emails) => client.validateBatch(emails)));
    expect(answers.flat()).toHaveLength(125);
    const after = await client.getUsage();
    expect(after.used).toEqual({ bulk: 0, single: 100, total: 100 });
  });

  it('402 when the quota cannot cover the counted addresses; test addresses need none', async () => {
    const client = await freshCompany(2);
    await expect(client.submitBatch(['a@ok.test', 'b@ok.test', 'c@ok.test'])).rejects.toMatchObject({
      status: 402,
    });
    const two = await client.validateBatch(['a@ok.test', 'safe@mailvet.test', 'b@ok.test']);
    expect(two.map(verdictOf)).toEqual([
      ['safe', 'domain_ok'],
      ['safe', 'accepted'],
      ['safe', 'domain_ok'],
    ]);
    expect((await client.getUsage()).remaining).toBe(0);
    await expect(client.submitBatch(['a@ok.test'])).rejects.toBeInstanceOf(MailvetApiError);
    // quota spent: test addresses still answer, on every single path too
    expect((await client.validateBatch(['bounce@mailvet.test'])).map(verdictOf)).toEqual([
      ['block_bounce_risk', 'mailbox_not_found'],
    ]);
    expect(verdictOf(await client.validate('full@mailvet.test'))).toEqual(['some_risk', 'mailbox_full']);
    expect(verdictOf(await client.validate('dead@mailvet.test', { async: true }))).toEqual([
      'dead_email',
      'known_dead',
    ]);
  });
});

describe('test addresses at mailvet.test', () => {
  it('single and async: each gets its verdict, without DNS or SMTP, and is never counted', async () => {
    const client = await freshCompany();
    for (const [email, status, reason] of TEST_ADDRESSES) {
      const sync = await client.submitValidation(email);
      // only slow@ is over the budget (202), every other one answers at once
      expect([email, sync.done]).toEqual([email, !email.startsWith('slow@')]);
      const result = sync.done ? sync.result : await client.waitForValidation(sync.pending, 30_000);
      expect([email, ...verdictOf(result)]).toEqual([email, status, reason]);
      expect(result.mailbox.smtpProbe).toBe('skipped'); // never probed
      const queued = await client.validate(email, { async: true, timeoutMs: 30_000 });
      expect([email, ...verdictOf(queued)]).toEqual([email, status, reason]);
    }
    for (const type of ['MX', 'A', 'AAAA']) expect(dns.count('mailvet.test', type)).toBe(0);
    expect((await client.getUsage()).used).toEqual({ bulk: 0, single: 0, total: 0 });
  });

  it('in a bulk file: each row gets its status and only the real rows count', async () => {
    const company = await onboardCompany(
      parseOnboardingInput({ name: 'Bulk tests', adminEmail: 'ops@bulk-tests.example' }),
    );
    const bulk = new BulkClient(local.baseUrl, company.apiKey);
    const rows = [...TEST_ADDRESSES.map(([email]) => email), 'ann@ok.test', 'bob@nowhere.test'];
    const csv = `email\n${rows.join('\n')}\n`;
    const run = await bulk.run(Buffer.from(csv), { emailColumn: 0, fileName: 'test-addresses.csv' });
    expect(run.final.status).toBe('completed');
    const statuses = run
      .file!.toString('utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => line.split(',')[1]);
    expect(statuses).toEqual([...TEST_ADDRESSES.map(([, status]) => status), 'safe', 'block_bounce_risk']);
    expect(run.final.totalEmails).toBe(rows.length);
    const usage = await clientFor(company.apiKey).getUsage();
    expect(usage.used).toEqual({ bulk: 2, single: 0, total: 2 });
  });
});
