// Every route over real HTTP on the local runtime, each response checked against docs/openapi.json
// (status documented, body valid against its schema, error text listed), so the document cannot
// drift from what the code answers. The bulk end-to-end client checks its responses the same way.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import openapi from '../../docs/openapi.json';
import { onboardCompany, parseOnboardingInput } from '../../functions/domain/accounts/onboarding';
import type { FixtureDns } from '../unit/validation/fixtures/dns-server';
import { BulkClient, startBulkDns } from '../e2e/bulk-client';
import { fixtureDnsSettings, startTestRuntime, type TestRuntime } from '../helpers/local-runtime';
import { inviteLinkToken, outboxFiles } from '../helpers/people';
import { operationOf, responseProblems } from '../helpers/openapi-check';
import { until } from '../helpers/until';
import { createHmac } from 'node:crypto';
import { startOutreachFake, type OutreachFake } from '../fakes/outreach';
import { platformEnv } from './safety-net-harness';

jest.setTimeout(120_000);

let dns: FixtureDns;
let local: TestRuntime;
let outreach: OutreachFake;
const problems: string[] = [];
/** operationId -> statuses seen */
const seen = new Map<string, Set<number>>();

beforeAll(async () => {
  dns = await startBulkDns();
  // the Safety Net connection routes talk to the Outreach stand-in
  outreach = await startOutreachFake({ host: '127.0.35.132' });
  outreach.control.seed({ users: 2, sequences: 1 });
  local = await startTestRuntime(
    { ...fixtureDnsSettings(dns), ...platformEnv('outreach', outreach), RATE_LIMIT_PER_SECOND: '100000' },
    // the user pool emulator: accepting an invite creates a person
    { people: true },
  );
});

afterAll(async () => {
  await local?.stop();
  await dns?.close();
  await outreach?.stop();
});

const unknownId = '00000000-0000-4000-8000-000000000000';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

/** One request; its response is checked against the document and remembered. */
async function call(
  method: string,
  path: string,
  options: { key?: string | null; body?: unknown; raw?: string } = {},
): Promise<{ status: number; body: Json }> {
  const key = options.key === undefined ? local.keys.admin : options.key;
  const response = await fetch(`${local.baseUrl}${path}`, {
    method,
    headers: {
      ...(key === null ? {} : { 'x-api-key': key }),
      ...(options.body === undefined && options.raw === undefined
        ? {}
        : { 'content-type': 'application/json' }),
    },
    body: options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body)),
    // the OAuth callback answers 302: checked as such, not followed to the console
    redirect: 'manual',
  });
  const text = await response.text();
  problems.push(...responseProblems(method, path, response.status, text));
  const id = operationOf(method, path)?.operationId ?? `${method} ${path}`;
  if (!seen.has(id)) seen.set(id, new Set());
  seen.get(id)!.add(response.status);
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}

describe('responses against docs/openapi.json', () => {
  it('bulk jobs: create, status, download, and their errors', async () => {
    expect((await call('POST', '/v1/email/validate-file', { key: null, body: {} })).status).toBe(401);
    expect((await call('POST', '/v1/email/validate-file', { key: 'wrong', body: {} })).status).toBe(403);
    expect((await call('POST', '/v1/email/validate-file', { raw: '{"emailColumn":' })).status).toBe(400);
    expect((await call('POST', '/v1/email/validate-file', { body: {} })).status).toBe(400);
    expect(
      (await call('POST', '/v1/email/validate-file', { body: { emailColumn: 0, fileName: 'x.txt' } })).status,
    ).toBe(400);
    expect((await call('GET', `/v1/email/validate-file/${unknownId}`)).status).toBe(404);

    const created = await call('POST', '/v1/email/validate-file', {
      body: { emailColumn: 1, fileName: 'a.csv' },
    });
    expect(created.status).toBe(202);
    expect((await call('GET', `/v1/email/validate-file/${created.body.jobId}/download`)).status).toBe(409);
    const put = await new BulkClient(local.baseUrl, local.keys.admin).upload(
      created.body.uploadUrl,
      Buffer.from('name,email\nAnn,ann@ok.test\nBob,bob@nowhere.test\nNo,not-an-address\n'),
    );
    expect(put.status).toBe(200);
    const done = await until('job completion', async () => {
      const job = await call('GET', `/v1/email/validate-file/${created.body.jobId}`);
      return job.body.status === 'completed' ? job : undefined;
    });
    expect(done.body.statistics.safe + done.body.statistics.dead_email).toBeGreaterThan(0);
    expect((await call('GET', `/v1/email/validate-file/${created.body.jobId}/download`)).status).toBe(200);

    const jobPath = `/v1/email/validate-file/${created.body.jobId}`;
    expect(
      (await call('GET', `${jobPath}/download?status=safe,dead_email&columns=status,reason`)).status,
    ).toBe(200);
    expect((await call('GET', `${jobPath}/download?status=nope`)).status).toBe(400);
    expect((await call('GET', `${jobPath}/download?columns=why`)).status).toBe(400);
    expect((await call('GET', '/v1/email/validate-file?status=completed')).status).toBe(200);
    expect((await call('GET', '/v1/email/validate-file?status=gone')).status).toBe(400);
    expect((await call('GET', `${jobPath}/webhook-deliveries`)).status).toBe(200);
    expect((await call('GET', `/v1/email/validate-file/${unknownId}/webhook-deliveries`)).status).toBe(404);
    expect((await call('POST', `${jobPath}/run`)).status).toBe(409);
    expect((await call('POST', `/v1/email/validate-file/${unknownId}/run`)).status).toBe(404);
    const estimate = await call('POST', '/v1/email/validate-file', {
      body: { emailColumn: 0, estimate: true },
    });
    expect(estimate.status).toBe(202);
    const estimatePath = `/v1/email/validate-file/${estimate.body.jobId}`;
    const estimatePut = await new BulkClient(local.baseUrl, local.keys.admin).upload(
      estimate.body.uploadUrl,
      Buffer.from('ann@ok.test\nbob@nowhere.test\n'),
    );
    expect(estimatePut.status).toBe(200);
    await until('estimate completion', async () => {
      const job = await call('GET', estimatePath);
      return job.body.status === 'completed' ? job : undefined;
    });
    expect((await call('GET', `${estimatePath}/download`)).status).toBe(409);
    expect((await call('POST', `${estimatePath}/run`)).status).toBe(201);
    expect((await call('DELETE', `/v1/email/validate-file/${unknownId}`)).status).toBe(404);
    expect((await call('DELETE', jobPath)).status).toBe(204);
    expect((await call('GET', jobPath)).status).toBe(404);
  });

  it('single addresses: sync, async, polling, and their errors', async () => {
    const sync = await call('POST', '/v1/email/validate', {
      body: { email: 'ann@ok.test', metadata: { crm: 7 } },
    });
    expect(sync.status).toBe(200);
    expect((await call('POST', '/v1/email/validate', { body: { email: 42 } })).status).toBe(400);
    expect(
      (await call('POST', '/v1/email/validate', { body: { email: 'a@b.test', metadata: [1] } })).status,
    ).toBe(400);
    expect((await call('POST', '/v1/email/validate-async', { body: {} })).status).toBe(400);
    const accepted = await call('POST', '/v1/email/validate-async', { body: { email: 'bob@nowhere.test' } });
    expect(accepted.status).toBe(202);
    await until('the async result', async () => {
      const poll = await call('GET', accepted.body.pollUrl);
      return poll.status === 200 ? poll : undefined;
    });
    expect((await call('GET', `/v1/email/validate/${unknownId}`)).status).toBe(404);
  });

  it('batches: results in order, and their errors', async () => {
    const batch = await call('POST', '/v1/email/validate-batch', {
      body: { emails: ['ann@ok.test', 'bounce@mailvet.test'], metadata: { crm: 7 } },
    });
    expect(batch.status).toBe(200);
    expect(batch.body.results.map((item: Json) => item.email)).toEqual([
      'ann@ok.test',
      'bounce@mailvet.test',
    ]);
    expect((await call('POST', '/v1/email/validate-batch', { body: { emails: [] } })).status).toBe(400);
    expect((await call('POST', '/v1/email/validate-batch', { body: { emails: ['a', 1] } })).status).toBe(400);
    expect(
      (await call('POST', '/v1/email/validate-batch', { body: { emails: ['a'], metadata: 'x' } })).status,
    ).toBe(400);
    expect(
      (await call('POST', '/v1/email/validate-batch', { body: { emails: ['a'.repeat(10_001)] } })).status,
    ).toBe(400);
  });

  it('usage, and the 402 of a company without quota or credits', async () => {
    expect((await call('GET', '/v1/usage')).status).toBe(200);
    expect((await call('GET', '/v1/usage?month=2026-13')).status).toBe(400);
    const spent = await onboardCompany(
      parseOnboardingInput({ name: 'Spent', adminEmail: 'ops@spent.example', monthlyQuota: 0 }),
    );
    for (const route of ['/v1/email/validate', '/v1/email/validate-async'])
      expect((await call('POST', route, { key: spent.apiKey, body: { email: 'ann@ok.test' } })).status).toBe(
        402,
      );
    expect(
      (
        await call('POST', '/v1/email/validate-batch', {
          key: spent.apiKey,
          body: { emails: ['ann@ok.test'] },
        })
      ).status,
    ).toBe(402);
  });

  it('workspace lists and details, with their errors', async () => {
    const lists = [
      ['/v1/connected-mailboxes', 'mailboxes', 'connectionStatus=nope'],
      ['/v1/connected-domains', 'domains', 'limit=0'],
      ['/v1/users', 'users', 'status=gone'],
      ['/v1/safety-net-mailboxes', 'mailboxes', 'activated=maybe'],
      ['/v1/safety-net-sequences', 'sequences', 'service=hubspot'],
    ] as const;
    const firsts: Record<string, Json> = {};
    for (const [path, key, bad] of lists) {
      const page = await call('GET', `${path}?limit=1000`);
      expect(page.status).toBe(200);
      expect(page.body[key].length).toBeGreaterThan(0);
      firsts[path] = page.body[key][0];
      expect((await call('GET', `${path}?${bad}`)).status).toBe(400);
      expect((await call('GET', `${path}?offset=-1`)).status).toBe(400);
    }
    const mailbox = firsts['/v1/connected-mailboxes'].id;
    expect((await call('GET', `/v1/connected-mailboxes/${mailbox}`)).status).toBe(200);
    expect((await call('GET', `/v1/connected-mailboxes/${mailbox}?startDate=2026-02-30`)).status).toBe(400);
    expect((await call('GET', `/v1/connected-mailboxes/${unknownId}`)).status).toBe(404);
    const domain = firsts['/v1/connected-domains'].domain;
    expect(
      (await call('GET', `/v1/connected-domains/${domain}?startDate=2026-01-01&endDate=2026-02-01`)).status,
    ).toBe(200);
    expect(
      (await call('GET', `/v1/connected-domains/${domain}?startDate=2026-03-01&endDate=2026-02-01`)).status,
    ).toBe(400);
    expect((await call('GET', '/v1/connected-domains/nothing.example')).status).toBe(404);
    const user = firsts['/v1/users'].id ?? unknownId;
    expect((await call('GET', `/v1/users/${user}`)).status).toBe(200);
    expect((await call('GET', `/v1/users/${unknownId}`)).status).toBe(404);
    const snMailbox = firsts['/v1/safety-net-mailboxes'].id;
    expect((await call('GET', `/v1/safety-net-mailboxes/${snMailbox}`)).status).toBe(200);
    expect((await call('GET', `/v1/safety-net-mailboxes/${unknownId}`)).status).toBe(404);
    const sequence = firsts['/v1/safety-net-sequences'].id;
    expect((await call('GET', `/v1/safety-net-sequences/${sequence}`)).status).toBe(200);
    expect((await call('GET', `/v1/safety-net-sequences/${unknownId}`)).status).toBe(404);
  });

  it('workspace writes, with their errors', async () => {
    const invite = { email: 'new.person@acme.example', name: 'New Person' };
    expect((await call('POST', '/v1/users', { body: invite })).status).toBe(201);
    // No SES on the local runtime: the invite email is written to DATA_DIR/outbox and the record sent.
    const outbox = join(local.dataDir, 'outbox');
    const eml = await until('the invite email in the outbox', async () =>
      existsSync(outbox) ? readdirSync(outbox).find((file) => file.endsWith('.eml')) : undefined,
    );
    expect(readFileSync(join(outbox, eml), 'utf8')).toContain('\r\nTo: new.person@acme.example\r\n');
    expect((await call('POST', '/v1/users', { body: invite })).status).toBe(200);
    expect((await call('POST', '/v1/users', { body: { email: 'nope' } })).status).toBe(400);
    expect((await call('POST', '/v1/users', { key: local.keys.member, body: invite })).status).toBe(403);

    const snMailbox = (await call('GET', '/v1/safety-net-mailboxes?limit=1')).body.mailboxes[0].id;
    const path = `/v1/safety-net-mailboxes/${snMailbox}`;
    expect((await call('PATCH', path, { body: { activated: true } })).status).toBe(200);
    expect((await call('PATCH', path, { body: { activated: 'yes' } })).status).toBe(400);
    expect(
      (await call('PATCH', `/v1/safety-net-mailboxes/${unknownId}`, { body: { activated: true } })).status,
    ).toBe(404);

    const sequence = (await call('GET', '/v1/safety-net-sequences?limit=1')).body.sequences[0].id;
    expect(
      (await call('PATCH', `/v1/safety-net-sequences/${sequence}`, { body: { activated: false } })).status,
    ).toBe(200);
    expect(
      (
        await call('PATCH', `/v1/safety-net-sequences/${sequence}`, {
          key: local.keys.member,
          body: { activated: true },
        })
      ).status,
    ).toBe(403);
  });

  it("people: accepting an invite, an admin's own API keys, and their errors", async () => {
    const seenEmails = outboxFiles(join(local.dataDir, 'outbox'));
    expect((await call('POST', '/v1/users', { body: { email: 'joiner@acme.example' } })).status).toBe(201);
    const { token } = await inviteLinkToken(join(local.dataDir, 'outbox'), 'joiner@acme.example', {
      seen: seenEmails,
    });
    const accept = (body: unknown) => call('POST', '/v1/invites/accept', { key: null, body });
    expect((await accept({ token, password: 'short' })).status).toBe(400);
    expect((await accept({ password: 'Correct-horse-b4ttery!' })).status).toBe(400);
    expect((await accept({ token, password: 'Correct-horse-b4ttery!' })).status).toBe(200);
    expect((await accept({ token, password: 'Correct-horse-b4ttery!' })).status).toBe(410);

    expect((await call('GET', '/v1/api-keys')).status).toBe(200);
    expect((await call('GET', '/v1/api-keys', { key: local.keys.member })).status).toBe(403);
    const created = await call('POST', '/v1/api-keys', { body: { name: 'CRM sync' } });
    expect(created.status).toBe(201);
    expect((await call('POST', '/v1/api-keys', { body: { name: '' } })).status).toBe(400);
    expect((await call('DELETE', `/v1/api-keys/${created.body.id}`)).status).toBe(200);
    expect((await call('DELETE', `/v1/api-keys/${unknownId}`)).status).toBe(404);

    const beforeReset = outboxFiles(join(local.dataDir, 'outbox'));
    const resetFor = (email: string) => call('POST', '/v1/password-resets', { key: null, body: { email } });
    expect((await resetFor('joiner@acme.example')).status).toBe(202);
    expect((await resetFor('nobody@acme.example')).status).toBe(202);
    expect((await call('POST', '/v1/password-resets', { key: null, body: {} })).status).toBe(400);
    const reset = await inviteLinkToken(join(local.dataDir, 'outbox'), 'joiner@acme.example', {
      seen: beforeReset,
      page: 'reset-password',
    });
    const confirm = (body: unknown) => call('POST', '/v1/password-resets/confirm', { key: null, body });
    expect((await confirm({ token: reset.token, password: 'weak' })).status).toBe(400);
    expect((await confirm({ token: reset.token, password: 'Another-g00d-one!' })).status).toBe(200);
    expect((await confirm({ token: reset.token, password: 'Another-g00d-one!' })).status).toBe(410);
  });

  it('Safety Net connections, preventions and the allowlist, with their errors', async () => {
    expect((await call('POST', '/v1/integrations/outreach', { key: local.keys.member })).status).toBe(403);
    expect((await call('POST', '/v1/integrations/nowhere')).status).toBe(404);
    const start = await call('POST', '/v1/integrations/outreach');
    expect(start.status).toBe(200);
    const consent = await fetch(start.body.authorizeUrl, { redirect: 'manual' });
    const callback = new URL(consent.headers.get('location')!);
    expect((await call('GET', `${callback.pathname}${callback.search}`, { key: null })).status).toBe(302);
    expect((await call('GET', `${callback.pathname}${callback.search}`, { key: null })).status).toBe(400);
    await until('the first sync', async () => {
      const list = await call('GET', '/v1/integrations');
      return list.body.integrations[0]?.lastSyncAt ? true : undefined;
    });
    expect((await call('POST', '/v1/integrations/outreach/sync')).status).toBe(202);
    expect((await call('POST', '/v1/integrations/salesloft/sync')).status).toBe(404);

    const hook = outreach.control.list('webhook')[0]!;
    const body = JSON.stringify({ data: { type: 'mailing', id: 1, attributes: {} } });
    const signed = (signature: string) =>
      fetch(`${local.baseUrl}${new URL(String(hook.attributes.url)).pathname}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'outreach-webhook-signature': signature },
        body,
      });
    for (const signature of [
      createHmac('sha256', String(hook.attributes.secret)).update(body).digest('hex'),
      'bad',
    ]) {
      const response = await signed(signature);
      const text = await response.text();
      problems.push(
        ...responseProblems('POST', new URL(String(hook.attributes.url)).pathname, response.status, text),
      );
      seen.set('integrationWebhook', new Set([...(seen.get('integrationWebhook') ?? []), response.status]));
    }
    expect([...seen.get('integrationWebhook')!].sort()).toEqual([204, 401]);

    expect((await call('GET', '/v1/safety-net/preventions?limit=5')).status).toBe(200);
    expect((await call('GET', '/v1/safety-net/preventions?limit=0')).status).toBe(400);
    expect((await call('PUT', '/v1/safety-net/allowlist/Kept@Acme.example')).status).toBe(204);
    expect((await call('PUT', '/v1/safety-net/allowlist/not-an-address')).status).toBe(400);
    expect((await call('GET', '/v1/safety-net/allowlist')).body).toEqual({ emails: ['kept@acme.example'] });
    expect((await call('GET', '/v1/safety-net/allowlist', { key: local.keys.member })).status).toBe(403);
    expect((await call('DELETE', '/v1/safety-net/allowlist/kept@acme.example')).status).toBe(204);
    expect((await call('DELETE', '/v1/integrations/outreach', { key: local.keys.member })).status).toBe(403);
    expect((await call('DELETE', '/v1/integrations/outreach')).status).toBe(204);
    expect((await call('DELETE', '/v1/integrations/outreach')).status).toBe(404);
  });

  it('connected mailboxes: connect refusals, disconnect', async () => {
    expect((await call('POST', '/v1/connected-mailboxes', { key: local.keys.member, body: {} })).status).toBe(
      403,
    );
    expect((await call('POST', '/v1/connected-mailboxes', { body: { email: 'x@y.example' } })).status).toBe(
      400,
    );
    expect((await call('DELETE', `/v1/connected-mailboxes/${unknownId}`)).status).toBe(404);
    const imported = (await call('GET', '/v1/connected-mailboxes?limit=1')).body.mailboxes[0].id;
    expect((await call('DELETE', `/v1/connected-mailboxes/${imported}`)).status).toBe(204);
  });

  it('matched the document on every response, and reached every operation with a success', () => {
    expect(problems).toEqual([]);
    const paths = openapi.paths as Record<string, Record<string, { operationId: string }>>;
    const operations = new Set(
      Object.values(paths).flatMap((methods) => Object.values(methods).map((o) => o.operationId)),
    );
    const succeeded = [...seen]
      // a redirect (the OAuth callback's 302) is that route's success
      .filter(([, statuses]) => [...statuses].some((s) => s < 400))
      .map(([id]) => id);
    // A connect's 201 needs real IMAP and SMTP servers whose CA the process trusted at its start
    // (NODE_EXTRA_CA_CERTS): test/integration/mailboxes-placement.test.ts checks it against this document.
    const needsMailServers = ['connectMailbox'];
    expect(succeeded.sort()).toEqual([...operations].filter((o) => !needsMailServers.includes(o)).sort());
  });
});
