// Usage, quota and credits on the local runtime: counting per source, GET /v1/usage, the 402 of the
// single endpoints, bulk reservations (failure with nothing consumed, the race for the last credits,
// counting once under redelivery, release on failure) and the operator tool.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { onboardCompany, parseOnboardingInput } from '../../functions/domain/accounts/onboarding';
import { getJobItem } from '../../functions/store/jobs/item';
import { markCompleted, markFailed } from '../../functions/store/jobs/transitions';
import { putProcessingJob } from '../helpers/jobs';
import { jobLimits } from '../../functions/domain/bulk/limits';
import { emptyStatistics } from '../../functions/domain/bulk/statuses';
import {
  addCredits,
  countCompletedJob,
  releaseFailedJob,
  reserveForJob,
  setMonthlyQuota,
  usageMonth,
} from '../../functions/domain/usage';
import { readJobReservation, readUsageRecords } from '../../functions/store/usage';
import { BulkClient, startBulkDns } from '../e2e/bulk-client';
import { expectDocumented } from '../helpers/openapi-check';
import { fixtureDnsSettings, useRuntimeWithDns } from '../helpers/local-runtime';

jest.setTimeout(120_000);

const world = useRuntimeWithDns(
  () => startBulkDns(),
  (dns) => ({ ...fixtureDnsSettings(dns), RATE_LIMIT_PER_SECOND: '100000', CHUNK_SIZE_BYTES: '40' }),
);

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

async function call(method: string, route: string, key: string, body?: unknown) {
  const response = await fetch(`${world.local.baseUrl}${route}`, {
    method,
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  await expectDocumented(method, route, response);
  const text = await response.text();
  return { status: response.status, body: (text === '' ? undefined : JSON.parse(text)) as Json };
}

const usageOf = async (key: string, query = '') => (await call('GET', `/v1/usage${query}`, key)).body;

/** A fresh company with its own plan and its admin's key. */
async function company(monthlyQuota: number, credits = 0) {
  return onboardCompany(
    parseOnboardingInput({
      name: 'Quota Co',
      adminEmail: `ops+${randomUUID()}@quota.example`,
      monthlyQuota,
      credits,
    }),
  );
}

describe('GET /v1/usage', () => {
  it('shows the demo plans: Acme within its quota, Globex close to its limit', async () => {
    const now = new Date();
    const acme = await usageOf(world.local.keys.member);
    expect(acme).toMatchObject({ month: usageMonth(now), quota: 1_000_000, creditsRemaining: 5_000 });
    expect(acme.periodStart).toBe(`${usageMonth(now)}-01T00:00:00.000Z`);
    expect(new Date(acme.periodEnd).getUTCDate()).toBe(1);
    expect(Object.keys(acme).sort()).toEqual([
      'creditsRemaining',
      'month',
      'periodEnd',
      'periodStart',
      'quota',
      'remaining',
      'used',
    ]);

    const globex = await usageOf(world.local.keys.other);
    expect(globex).toMatchObject({
      quota: 500,
      used: { single: 95, bulk: 400, total: 495 },
      creditsRemaining: 20,
      remaining: 25,
    });
    const last = usageMonth(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1)));
    expect(await usageOf(world.local.keys.other, `?month=${last}`)).toMatchObject({
      month: last,
      used: { total: 510 },
      quota: 500,
      remaining: 20,
    });
  });

  it('answers 400 for a malformed month', async () => {
    for (const bad of ['2026-13', '2026-1', 'november', '2026-11-01']) {
      const res = await call('GET', `/v1/usage?month=${bad}`, world.local.keys.admin);
      expect(res).toEqual({ status: 400, body: { error: 'month must be a calendar month written YYYY-MM' } });
    }
  });
});

describe('single endpoints', () => {
  it('count each validation as single; quota first, then credits, then 402 with nothing counted', async () => {
    const co = await company(2, 1);
    expect((await call('POST', '/v1/email/validate', co.apiKey, { email: 'ann@ok.test' })).status).toBe(200);
    const accepted = await call('POST', '/v1/email/validate-async', co.apiKey, { email: 'bob@ok.test' });
    expect(accepted.status).toBe(202);
    await waitFor(async () => (await call('GET', accepted.body.pollUrl, co.apiKey)).status === 200);
    expect(await usageOf(co.apiKey)).toMatchObject({ used: { single: 2, total: 2 }, remaining: 1 });

    // The quota is spent: the last credit pays for the third.
    expect((await call('POST', '/v1/email/validate', co.apiKey, { email: 'cy@ok.test' })).status).toBe(200);
    expect(await usageOf(co.apiKey)).toMatchObject({ creditsRemaining: 0, remaining: 0, used: { total: 3 } });

    for (const route of ['/v1/email/validate', '/v1/email/validate-async']) {
      const refused = await call('POST', route, co.apiKey, { email: 'dee@ok.test' });
      expect(refused).toEqual({ status: 402, body: { error: 'Validation quota exceeded' } });
    }
    // Bad input is still a 400, and the workspace still answers.
    expect((await call('POST', '/v1/email/validate', co.apiKey, {})).status).toBe(400);
    expect((await call('GET', '/v1/users', co.apiKey)).status).toBe(200);
    expect((await usageOf(co.apiKey)).used).toEqual({ bulk: 0, single: 3, total: 3 });

    await addCredits(co.companyId, 1);
    expect((await call('POST', '/v1/email/validate', co.apiKey, { email: 'dee@ok.test' })).status).toBe(200);
  });
});

async function waitFor(probe: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`still waiting after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const csv = (rows: string[]) => Buffer.from(['name,email', ...rows].join('\n') + '\n');

describe('bulk jobs', () => {
  it('fail when the file needs more than is left, giving rows needed and validations left; nothing consumed', async () => {
    const co = await company(3, 2);
    const client = new BulkClient(world.local.baseUrl, co.apiKey);
    const rows = Array.from({ length: 6 }, (_, n) => `P${n},p${n}@ok.test`);
    const run = await client.run(csv(rows), { emailColumn: 1 });
    expect(run.final.status).toBe('failed');
    expect(run.final.error).toMatch(/the file has 6 rows to validate and 5 validations are left/);
    expect(await usageOf(co.apiKey)).toMatchObject({ used: { bulk: 0, total: 0 }, remaining: 5 });
    const month = (await readUsageRecords(co.companyId)).months.get(usageMonth(new Date()));
    expect(month?.reserved ?? 0).toBe(0);

    // A file that fits completes and counts its rows with a status (blank lines never).
    const fits = await client.run(csv(['A,a@ok.test', '', 'B,b@nowhere.test', 'C,not-an-address']), {
      emailColumn: 1,
    });
    expect(fits.final.status).toBe('completed');
    expect(fits.final.totalEmails).toBe(3);
    expect(await usageOf(co.apiKey)).toMatchObject({ used: { bulk: 3, single: 0, total: 3 }, remaining: 2 });
  });
});

/** A processing job of the company, as the scan leaves it before its reservation. */
async function processingJob(companyId: string) {
  const jobId = randomUUID();
  expect(await putProcessingJob(companyId, jobId)).toBe(true);
  return { companyId, jobId };
}

/** A job that reserved `reserved` rows and completed with `rows` of them (its count not yet taken). */
async function completedJob(companyId: string, reserved: number, rows: number) {
  const job = await processingJob(companyId);
  expect(await reserveForJob(job, reserved)).toEqual({ ok: true });
  const statistics = { ...emptyStatistics(), safe: rows };
  const done = { completedAt: new Date().toISOString(), statistics, totalEmails: rows, resultKey: 'k' };
  expect(await markCompleted(job, done, jobLimits)).toBe(true);
  return { ...job, status: 'completed', totalEmails: rows };
}

describe('bulk reservations', () => {
  it('let only one of several jobs racing for the last credits through', async () => {
    for (let round = 0; round < 3; round++) {
      const co = await company(4, 6); // 10 left; each job needs 6
      const jobs = await Promise.all(Array.from({ length: 5 }, () => processingJob(co.companyId)));
      const outcomes = await Promise.all(jobs.map((job) => reserveForJob(job, 6)));
      expect(outcomes.filter((o) => o.ok)).toHaveLength(1);
      for (const refused of outcomes.filter((o) => !o.ok))
        expect(refused).toEqual({
          ok: false,
          error: expect.stringContaining('6 rows to validate and 4 validations'),
        });
      const month = (await readUsageRecords(co.companyId)).months.get(usageMonth(new Date()))!;
      expect(month).toMatchObject({ reserved: 6, committed: 6 });
    }
  });

  it('count a completed job once however often completion runs, and release a failed one once', async () => {
    const co = await company(100);
    const done = await processingJob(co.companyId);
    expect(await reserveForJob(done, 10)).toEqual({ ok: true });
    // The scan running again (a taken-over lease) does not reserve twice.
    expect(await reserveForJob(done, 10)).toEqual({ ok: true });
    expect((await usageOf(co.apiKey)).remaining).toBe(90);
    const statistics = { ...emptyStatistics(), safe: 7, dead_email: 2 };
    await markCompleted(
      done,
      { completedAt: new Date().toISOString(), statistics, totalEmails: 9, resultKey: 'k' },
      jobLimits,
    );
    const completed = (await getJobItem(done.companyId, done.jobId, true))!;
    expect(completed).toMatchObject({ status: 'completed', totalEmails: 9 });
    const counted = await Promise.all([1, 2, 3].map(() => countCompletedJob(completed)));
    expect(counted.filter(Boolean)).toHaveLength(1);
    expect(await countCompletedJob(completed)).toBe(false);
    expect(await usageOf(co.apiKey)).toMatchObject({ used: { bulk: 9, total: 9 }, remaining: 91 });

    const failed = await processingJob(co.companyId);
    expect(await reserveForJob(failed, 50)).toEqual({ ok: true });
    expect((await usageOf(co.apiKey)).remaining).toBe(41);
    // Releasing a job that has not failed does nothing.
    expect(await releaseFailedJob((await getJobItem(failed.companyId, failed.jobId, true))!)).toBe(false);
    expect(await markFailed(failed, 'boom', ['processing'], new Date().toISOString())).toBe(true);
    const failedJob = (await getJobItem(failed.companyId, failed.jobId, true))!;
    const released = await Promise.all([1, 2].map(() => releaseFailedJob(failedJob)));
    expect(released.filter(Boolean)).toHaveLength(1);
    expect(await usageOf(co.apiKey)).toMatchObject({ used: { total: 9 }, remaining: 91 });
    expect((await readUsageRecords(co.companyId)).months.get(usageMonth(new Date()))).toMatchObject({
      reserved: 0,
      committed: 9,
    });
    expect(await readJobReservation(co.companyId, failed.jobId)).toBeUndefined();
  });

  it('DELETE of a running job gives its reservation back; a deleted completed job stays counted', async () => {
    const co = await company(100);
    const running = await processingJob(co.companyId);
    expect(await reserveForJob(running, 30)).toEqual({ ok: true });
    expect((await usageOf(co.apiKey)).remaining).toBe(70);
    expect((await call('DELETE', `/v1/email/validate-file/${running.jobId}`, co.apiKey)).status).toBe(204);
    expect(await usageOf(co.apiKey)).toMatchObject({ used: { bulk: 0, total: 0 }, remaining: 100 });
    expect(await readJobReservation(co.companyId, running.jobId)).toBeUndefined();
    expect((await readUsageRecords(co.companyId)).months.get(usageMonth(new Date()))).toMatchObject({
      reserved: 0,
      committed: 0,
    });

    // Completed and counted: the DELETE leaves the count alone.
    const counted = await completedJob(co.companyId, 10, 8);
    expect(await countCompletedJob(counted)).toBe(true);
    expect((await call('DELETE', `/v1/email/validate-file/${counted.jobId}`, co.apiKey)).status).toBe(204);
    expect(await usageOf(co.apiKey)).toMatchObject({ used: { bulk: 8, total: 8 }, remaining: 92 });

    // Completed, but deleted before its completion counted it: the DELETE counts it (once).
    const uncounted = await completedJob(co.companyId, 10, 5);
    expect((await call('DELETE', `/v1/email/validate-file/${uncounted.jobId}`, co.apiKey)).status).toBe(204);
    expect(await countCompletedJob(uncounted)).toBe(false);
    expect(await usageOf(co.apiKey)).toMatchObject({ used: { bulk: 13, total: 13 }, remaining: 87 });
    expect((await readUsageRecords(co.companyId)).months.get(usageMonth(new Date()))).toMatchObject({
      reserved: 0,
      committed: 13,
    });
  });

  it('a new quota applies to the current month at once', async () => {
    const co = await company(10);
    await setMonthlyQuota(co.companyId, 3);
    expect(await usageOf(co.apiKey)).toMatchObject({ quota: 3, remaining: 3 });
  });
});

describe('npm run admin', () => {
  const run = (args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [require.resolve('tsx/cli'), path.join(__dirname, '../../bin/admin.ts'), ...args],
        { env: { ...process.env, DATA_DIR: world.local.dataDir }, cwd: path.join(__dirname, '../..') },
        (error, stdout, stderr) =>
          resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });

  it('onboards a company whose first key validates, then sets its plan, adds credits and reports usage', async () => {
    const created = await run([
      'company',
      'create',
      '--name',
      'Initech',
      '--admin-email',
      'Bill@Initech.example',
      '--monthly-quota',
      '1',
    ]);
    expect(created.stderr).toContain('the running local runtime');
    expect(created.code).toBe(0);
    const out = JSON.parse(created.stdout);
    expect(out).toMatchObject({ name: 'Initech', adminEmail: 'bill@initech.example' });
    expect((await call('POST', '/v1/email/validate', out.apiKey, { email: 'ann@ok.test' })).status).toBe(200);
    expect((await call('POST', '/v1/email/validate', out.apiKey, { email: 'ann@ok.test' })).status).toBe(402);
    expect((await call('GET', '/v1/users', out.apiKey)).body.users).toEqual([
      expect.objectContaining({ email: 'bill@initech.example', role: 'admin' }),
    ]);

    const plan = await run(['company', 'set-plan', '--company', out.companyId, '--monthly-quota', '5']);
    expect(JSON.parse(plan.stdout)).toMatchObject({ quota: 5, remaining: 4 });
    const credits = await run(['credits', 'add', '--company', out.companyId, '--amount', '10']);
    expect(JSON.parse(credits.stdout)).toMatchObject({ creditsRemaining: 10, remaining: 14 });
    const usage = await run(['usage', '--company', out.companyId, '--month', usageMonth(new Date())]);
    expect(JSON.parse(usage.stdout)).toMatchObject({
      companyId: out.companyId,
      used: { single: 1, total: 1 },
    });
  });

  it('rejects bad input with a clear message and a non-zero exit', async () => {
    const cases: [string[], RegExp][] = [
      [['company', 'create', '--name', 'X'], /--admin-email is required/],
      [['company', 'create', '--name', 'X', '--admin-email', 'nope'], /admin email must be an email address/],
      [
        ['credits', 'add', '--company', world.local.ids.acme, '--amount=-3'],
        /--amount must be a whole number/,
      ],
      [['usage', '--company', '00000000-0000-4000-8000-00000000ffff'], /Company not found/],
      [['usage', '--company', world.local.ids.acme, '--month', '2026-1'], /YYYY-MM/],
      [['frobnicate'], /usage:/],
    ];
    for (const [args, message] of cases) {
      const result = await run(args);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toMatch(message);
    }
  });
});
