// The one-off data migrations against DynamoDB Local: the job count backfill adds jobs written before
// the per-day counts existed, once however many runs meet; `npm run migrate` and a local runtime starting
// on old data run what is pending and say what was done.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoDb, tableName } from '../../functions/clients/dynamodb';
import { deleteJob, listJobs as listParsed, listJobsQuery } from '../../functions/domain/bulk/jobs';
import { parseQuery } from '../../functions/domain/workspace/query';
import { jobLimits } from '../../functions/domain/bulk/limits';
import { emptyStatistics } from '../../functions/domain/bulk/statuses';
import { runPendingMigrations } from '../../functions/domain/migrations';
import type { JobItem, StoredJobStatus } from '../../functions/store/jobs/item';
import { markCancelled, markCompleted } from '../../functions/store/jobs/transitions';
import { jobKey, jobsOfCompanyIndex, migrationKey } from '../../functions/store/keys';
import { startLocalRuntime, type LocalRuntime } from '../../local/runtime';

jest.setTimeout(300_000);

const dayMs = 86_400_000;

/** The list as the route gives it: the raw query parsed at the edge first. */
const listJobs = (companyId: string, query: Record<string, string>) =>
  listParsed(companyId, parseQuery(listJobsQuery, query));
const fixedClock = () => new Date('2026-11-20T10:00:00.000Z');
const systemLater = () => new Date(fixedClock().getTime() + dayMs);

let dataDir: string;
let runtime: LocalRuntime | undefined;

const startOn = (dir: string) =>
  startLocalRuntime({ port: 0, dataDir: dir, fsync: false, serve: false, env: { LOG_LEVEL: 'silent' } });

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'mailvet-migrate-'));
  runtime = await startOn(dataDir);
});

afterAll(async () => {
  await runtime?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A job item as releases before the day counts wrote it: no countDay, no per-state index entry. */
async function putLegacyJob(companyId: string, status: StoredJobStatus, createdAt: string): Promise<string> {
  const jobId = randomUUID();
  const item: Partial<JobItem> = {
    ...jobKey(companyId, jobId),
    ...jobsOfCompanyIndex(companyId, createdAt, jobId),
    entity: 'job',
    jobId,
    companyId,
    status,
    emailColumn: 0,
    createdAt,
    uploadExpiresAtMs: Date.parse(createdAt) + 300_000,
    slot: 0,
    totalEmails: 0,
    processedEmails: 0,
    counts: emptyStatistics(),
    partKeys: {},
    partBytes: {},
    ...(status === 'completed' ? { completedAt: createdAt, statistics: emptyStatistics() } : {}),
  };
  await dynamoDb().send(new PutCommand({ TableName: tableName(), Item: item }));
  return jobId;
}

/** Forgets that the backfill ran, as on a table that an older release wrote. */
const forgetBackfill = () =>
  dynamoDb().send(new DeleteCommand({ TableName: tableName(), Key: migrationKey('job-count-backfill') }));

it('counts jobs written before the day counts once, however many runs meet', async () => {
  const companyId = `legacy-${Math.random().toString(36).slice(2)}`;
  const createdAt = new Date(Date.now() - 3 * dayMs).toISOString();
  const legacy: Partial<Record<StoredJobStatus, string>> = {};
  for (const status of ['failed', 'completed', 'awaiting_upload', 'processing'] as const)
    legacy[status] = await putLegacyJob(companyId, status, createdAt);
  // A job from before the counts changes state in a plain conditional write (there is no count yet).
  const completedAt = new Date().toISOString();
  const done = { completedAt, statistics: emptyStatistics(), totalEmails: 0, resultKey: 'k' };
  expect(await markCompleted({ companyId, jobId: legacy.processing! }, done, jobLimits)).toBe(true);
  // The list no longer backfills on read: until the migration runs, these jobs are not in its total.
  expect((await listJobs(companyId, {})).total).toBe(0);

  await forgetBackfill();
  const runs = await Promise.all([1, 2, 3].map(() => runPendingMigrations(fixedClock)));
  const backfills = runs.map((outcomes) => outcomes.find((o) => o.name === 'job-count-backfill')!);
  expect(backfills.every((o) => o.state === 'ran')).toBe(true);
  // Three runs at once: each job was counted by exactly one of them.
  const added = backfills.map((o) => Number(/^(\d+) of/.exec(o.summary)![1]));
  expect(added.reduce((a, b) => a + b, 0)).toBe(4);

  const page = await listJobs(companyId, {});
  expect(page.total).toBe(4);
  expect(page.jobs).toHaveLength(4);
  expect((await listJobs(companyId, { status: 'completed' })).total).toBe(2);
  expect((await listJobs(companyId, { status: 'failed' })).total).toBe(1);
  expect((await listJobs(companyId, { status: 'expired' })).total).toBe(1);

  // Recorded: the next run does nothing and says when it was done.
  const again = (await runPendingMigrations(systemLater))[0]!;
  expect(again).toMatchObject({
    name: 'job-count-backfill',
    state: 'applied',
    appliedAt: fixedClock().toISOString(),
  });
  expect((await listJobs(companyId, {})).total).toBe(4);

  // Counted now: the next transition moves the counts too, and a delete takes the job out.
  expect(await markCancelled({ companyId, jobId: legacy.failed! }, completedAt)).toBe('failed');
  expect((await listJobs(companyId, { status: 'failed' })).total).toBe(0);
  await deleteJob(companyId, legacy.completed!, () => new Date());
  expect((await listJobs(companyId, {})).total).toBe(2);
});

it('runs at the start of a local runtime on old data, and npm run migrate reports it', async () => {
  const companyId = `restart-${Math.random().toString(36).slice(2)}`;
  await putLegacyJob(companyId, 'failed', new Date(Date.now() - dayMs).toISOString());
  await forgetBackfill();
  expect((await listJobs(companyId, {})).total).toBe(0);
  await runtime!.stop();
  runtime = undefined;

  // `npm run migrate` on the stopped runtime's data starts the emulators itself (which migrate at start).
  const { stdout } = await promisify(execFile)(
    path.join(__dirname, '../../node_modules/.bin/tsx'),
    [path.join(__dirname, '../../bin/migrate.ts')],
    { env: { ...process.env, DATA_DIR: dataDir, TABLE_NAME: '' }, timeout: 240_000 },
  );
  expect(stdout).toMatch(/^job-count-backfill: already applied at \S+: 1 of 1 jobs without a count day/m);

  runtime = await startOn(dataDir);
  expect((await listJobs(companyId, {})).total).toBe(1);
  expect((await listJobs(companyId, { status: 'failed' })).total).toBe(1);
});
