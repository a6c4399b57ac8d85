// The job list's `total` against DynamoDB Local: kept in per-day counts written in the same transaction
// as each job change, so a company with thousands of jobs pages in a bounded number of reads, and the
// totals agree with what the list shows across create, start, complete, fail, delete and time passing
// (jobs written before the counts existed: migrations.test.ts).
import { randomUUID } from 'node:crypto';
import { dynamoDb } from '../../functions/clients/dynamodb';
import { claimSlot, holdSlot, releaseSlot } from '../../functions/store/jobs/slots-and-leases';
import { markCompleted, markFailed, markProcessing, putNewJob } from '../../functions/store/jobs/transitions';
import { jobStatuses } from '../../functions/domain/bulk/job-view';
import { deleteJob, listJobs as listParsed, listJobsQuery } from '../../functions/domain/bulk/jobs';
import { jobLimits } from '../../functions/domain/bulk/limits';
import { emptyStatistics } from '../../functions/domain/bulk/statuses';
import { parseQuery } from '../../functions/domain/workspace/query';
import type { Clock } from '../../functions/clock';
import { startTestRuntime, type TestRuntime } from '../helpers/local-runtime';

/** The list as the route gives it: the raw query parsed at the edge first. */
const listJobs = (companyId: string, query: Record<string, string>, clock?: Clock) =>
  listParsed(companyId, parseQuery(listJobsQuery, query), clock);

jest.setTimeout(300_000);

let local: TestRuntime;

beforeAll(async () => {
  // The local runtime: DynamoDB Local and the S3 emulator a DELETE removes objects from.
  local = await startTestRuntime();
});

afterAll(async () => {
  await local?.stop();
});

const dayMs = 86_400_000;

/** Every DynamoDB call the process makes while `run` runs, and the items those calls read. */
async function metered<T>(run: () => Promise<T>): Promise<{ result: T; calls: string[]; itemsRead: number }> {
  const calls: string[] = [];
  let itemsRead = 0;
  const name = `meter-${randomUUID()}`;
  dynamoDb().middlewareStack.add(
    (next, context) => async (args) => {
      calls.push(String(context.commandName));
      const out = await next(args);
      const output = out.output as {
        ScannedCount?: number;
        Item?: unknown;
        Responses?: Record<string, unknown[]>;
      };
      itemsRead += output.ScannedCount ?? 0;
      if (output.Item) itemsRead += 1;
      for (const items of Object.values(output.Responses ?? {})) itemsRead += items.length;
      return out;
    },
    { step: 'initialize', name },
  );
  try {
    return { result: await run(), calls, itemsRead };
  } finally {
    dynamoDb().middlewareStack.remove(name);
  }
}

/** A job whose slot is not claimed (its upload URL has expired, or the test says which slot). */
async function newJob(companyId: string, createdAt: Date, uploadExpiresAtMs: number) {
  const job = { companyId, jobId: randomUUID() };
  await putNewJob(
    {
      ...job,
      emailColumn: 0,
      createdAt: createdAt.toISOString(),
      uploadExpiresAtMs,
      slot: 0,
      counts: emptyStatistics(),
    },
    jobLimits,
  );
  return job;
}

/** Every status's total, and what the list shows for it read in full (limit 1000). */
async function totalsAndListed(companyId: string, now = new Date()) {
  const out: Record<string, { total: number; listed: number }> = {};
  for (const status of ['', ...jobStatuses]) {
    const query: Record<string, string> = { limit: '1000', ...(status ? { status } : {}) };
    const page = await listJobs(companyId, query, () => now);
    out[status || 'all'] = { total: page.total, listed: page.jobs.length };
  }
  return out;
}

/** A job created as createJob does: it claims a slot until its upload URL expires. */
async function slotJob(companyId: string, now: number) {
  const jobId = randomUUID();
  const slot = await claimSlot(companyId, jobId, now + 300_000, now, jobLimits);
  if (slot === undefined) throw new Error('no free slot');
  await putNewJob(
    {
      companyId,
      jobId,
      emailColumn: 0,
      createdAt: new Date(now).toISOString(),
      uploadExpiresAtMs: now + 300_000,
      slot,
      counts: emptyStatistics(),
    },
    jobLimits,
  );
  return { companyId, jobId, slot };
}

/** The upload arrived: as start-processing does, the slot is held until the processing deadline. */
async function start(job: { companyId: string; jobId: string; slot: number }, now: number) {
  const deadlineAtMs = now + 2 * 3600_000;
  expect(await holdSlot(job.companyId, job.slot, job.jobId, deadlineAtMs)).toBe(true);
  expect(
    await markProcessing(job, { now: new Date(now).toISOString(), deadlineAtMs, scanLeaseUntilMs: 0 }),
  ).toBe(true);
}

const agree = (totals: Record<string, { total: number; listed: number }>) =>
  Object.fromEntries(Object.entries(totals).map(([status, t]) => [status, t.total === t.listed]));

describe('GET /v1/email/validate-file: total', () => {
  it('pages a company with 3,000 jobs in a bounded number of reads, with and without ?status=', async () => {
    const companyId = `many-${randomUUID()}`;
    const now = Date.now();
    // 3,000 jobs over 20 days whose upload URLs expired unused, written through the store a few at a time.
    const count = 3000;
    for (let n = 0; n < count; n += 10)
      await Promise.all(
        Array.from({ length: 10 }, (_, k) => {
          const createdAt = new Date(now - ((n + k) % 20) * dayMs - (n + k) * 1000 - 60_000);
          return newJob(companyId, createdAt, createdAt.getTime() + 300_000);
        }),
      );
    // The oldest three completed (today): the filtered list must not walk the 3,000 to reach them.
    const oldest = new Date(now - 25 * dayMs).toISOString();
    const completed: string[] = [];
    for (let n = 0; n < 3; n++) {
      const job = await newJob(
        companyId,
        new Date(Date.parse(oldest) - n * 1000),
        Date.parse(oldest) + 300_000,
      );
      await markProcessing(job, {
        now: oldest,
        deadlineAtMs: Date.parse(oldest) + 7200_000,
        scanLeaseUntilMs: 0,
      });
      const done = {
        completedAt: new Date(now).toISOString(),
        statistics: emptyStatistics(),
        totalEmails: 0,
        resultKey: 'k',
      };
      expect(await markCompleted(job, done, jobLimits)).toBe(true);
      completed.push(job.jobId);
    }
    const recent = await slotJob(companyId, now - 1000);
    // The company's first count read adds any jobs from before the counts (a one-time read of the whole
    // index, docs/bulk.md); every read after it is bounded.
    expect((await listJobs(companyId, { limit: '1' }, () => new Date(now))).total).toBe(count + 4);

    const queries: Record<string, string>[] = [
      {},
      { status: 'expired' },
      { status: 'awaiting_upload' },
      { status: 'completed' },
      { status: 'failed' },
      { offset: '100' },
    ];
    for (const query of queries) {
      const { result, calls, itemsRead } = await metered(() =>
        listJobs(companyId, { limit: '50', ...query }, () => new Date(now)),
      );
      // The day counts (one Query, at most 39 items), the slots (one Query, one BatchGet of at most 5
      // jobs) and the page: index pages of offset + limit items, a second one when a filter skipped some.
      const pageItems = Number(query.offset ?? 0) + 50;
      expect(calls.length).toBeLessThanOrEqual(8);
      expect(itemsRead).toBeLessThanOrEqual(40 + 10 + 2 * pageItems);
      if (query.status === 'awaiting_upload') {
        expect(result.total).toBe(1);
        expect(result.jobs.map((j) => j.jobId)).toEqual([recent.jobId]);
      } else if (query.status === 'completed') {
        expect(result.total).toBe(3);
        expect(result.jobs.map((j) => j.jobId)).toEqual(completed);
      } else if (query.status === 'failed') {
        expect(result).toMatchObject({ total: 0, jobs: [] });
      } else {
        expect(result.total).toBe(query.status === 'expired' ? count : count + 4);
        expect(result.jobs).toHaveLength(50);
      }
    }
  });

  it('stays what the list shows across create, start, complete, fail, delete and time passing', async () => {
    const companyId = `life-${randomUUID()}`;
    const now = Date.now();
    const lapsed = await newJob(companyId, new Date(now - 600_000), now - 300_000);
    const waiting = await slotJob(companyId, now);
    const done = await slotJob(companyId, now);
    const broken = await slotJob(companyId, now);
    const running = await slotJob(companyId, now);
    for (const job of [done, broken, running]) await start(job, now);
    expect(
      await markCompleted(
        done,
        {
          completedAt: new Date(now).toISOString(),
          statistics: emptyStatistics(),
          totalEmails: 0,
          resultKey: 'k',
        },
        jobLimits,
      ),
    ).toBe(true);
    await releaseSlot(done.companyId, done.slot, done.jobId);
    expect(await markFailed(broken, 'boom', ['processing'], new Date(now).toISOString())).toBe(true);
    await releaseSlot(broken.companyId, broken.slot, broken.jobId);
    // A second failure of the same job changes nothing.
    expect(await markFailed(broken, 'boom', ['processing'], new Date(now).toISOString())).toBe(false);

    const totals = await totalsAndListed(companyId, new Date(now));
    expect(totals).toEqual({
      all: { total: 5, listed: 5 },
      awaiting_upload: { total: 1, listed: 1 },
      processing: { total: 1, listed: 1 },
      completed: { total: 1, listed: 1 },
      failed: { total: 1, listed: 1 },
      expired: { total: 1, listed: 1 },
    });
    const ids = (await listJobs(companyId, { status: 'expired' }, () => new Date(now))).jobs.map(
      (j) => j.jobId,
    );
    expect(ids).toEqual([lapsed.jobId]);

    await deleteJob(companyId, broken.jobId, () => new Date(now));
    await deleteJob(companyId, waiting.jobId, () => new Date(now));
    expect(await totalsAndListed(companyId, new Date(now))).toMatchObject({
      all: { total: 3, listed: 3 },
      failed: { total: 0, listed: 0 },
      awaiting_upload: { total: 0, listed: 0 },
    });

    // Three hours on, the running job is past its deadline: failed, without any write.
    const deadline = await totalsAndListed(companyId, new Date(now + 3 * 3600_000));
    expect(deadline).toMatchObject({ processing: { total: 0, listed: 0 }, failed: { total: 1, listed: 1 } });
    expect(Object.values(agree(deadline)).every(Boolean)).toBe(true);
    // 32 days on the completed job reads expired and the unfinished ones are gone (TTL); 39 days on, all.
    const later = await totalsAndListed(companyId, new Date(now + 32 * dayMs));
    expect(later).toMatchObject({ all: { total: 1 }, expired: { total: 1 }, completed: { total: 0 } });
    expect(Object.values(agree(later)).every(Boolean)).toBe(true);
    expect((await listJobs(companyId, {}, () => new Date(now + 39 * dayMs))).total).toBe(0);
  });
});
