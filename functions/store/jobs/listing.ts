// The job list's reads: a company's jobs newest first (all of them, or by stored state) and its day counts.
import { jobsOfCompanyInStateIndex, jobsOfCompanyIndex } from '../keys';
import { queryPages } from '../dynamodb';
import { ttlAttribute } from '../table';
import { readJobCounts, utcDay, type DayCounts } from './day-counts';
import type { JobItem, JobLimits, StoredJobStatus } from './item';
import type { JobProbeState } from './probe-state';
import type { JobEstimateState } from './estimates';
import type { JobDuplicates } from './duplicates';
import { MalformedItemError, type StoredItem } from '../entities/declare';
import { jobEntity } from '../entities/jobs';

/** The attributes a job list item needs (the view's fields and the file name). */
const listedAttributes = [
  'jobId',
  'companyId',
  'status',
  'totalEmails',
  'processedEmails',
  'chunkCount',
  'createdAt',
  'completedAt',
  'statistics',
  'error',
  'fileName',
  'uploadExpiresAtMs',
  'deadlineAtMs',
  'dialect',
  'doneChunks',
  'probeUnits',
  'probeProgress',
  'unprobedEmails',
  'probeFinishExpectedAtMs',
  'duplicateEmails',
  'estimate',
  'estimateResult',
  'runJobId',
] as const;

/** `status` and `error` are reserved words in a projection. */
const projected = (names: readonly string[]): string =>
  names.map((name) => (name === 'status' || name === 'error' ? `#${name}` : name)).join(', ');

/**
 * What the job list reads of a job (`listedAttributes`): what the status view needs (domain/bulk/job-view.ts
 * ViewedJob), plus the owner and the file name.
 */
export type ListedJob = Pick<
  JobItem,
  | 'jobId'
  | 'companyId'
  | 'status'
  | 'totalEmails'
  | 'processedEmails'
  | 'chunkCount'
  | 'createdAt'
  | 'completedAt'
  | 'statistics'
  | 'error'
  | 'fileName'
  | 'uploadExpiresAtMs'
  | 'deadlineAtMs'
  | 'dialect'
  | 'doneChunks'
> &
  Pick<JobProbeState, 'probeUnits' | 'probeProgress' | 'unprobedEmails' | 'probeFinishExpectedAtMs'> &
  Pick<JobEstimateState, 'estimate' | 'estimateResult' | 'runJobId'> &
  Pick<JobDuplicates, 'duplicateEmails'>;

/** A listed job read back: the projected attributes checked, the ones every job has required. */
function parseListed(item: StoredItem, attributes: readonly string[]): ListedJob & { gsi2sk?: string } {
  const job = jobEntity.parsePart(item, attributes);
  const { jobId, companyId, status, totalEmails, processedEmails, createdAt, uploadExpiresAtMs } = job;
  if (
    jobId === undefined ||
    companyId === undefined ||
    status === undefined ||
    totalEmails === undefined ||
    processedEmails === undefined ||
    createdAt === undefined ||
    uploadExpiresAtMs === undefined
  )
    throw new MalformedItemError(jobEntity.name, item, 'a listed job lacks an attribute every job has');
  return { ...job, jobId, companyId, status, totalEmails, processedEmails, createdAt, uploadExpiresAtMs };
}

/**
 * The company's jobs, newest first, one index page at a time (gsi1, sorted by creation time); the
 * caller stops iterating once it has what it needs. `pageSize` items are read per page, so a page of
 * the list costs about the items up to offset + limit. A job past its TTL that DynamoDB has not removed
 * yet is skipped, as the day counts have already dropped it.
 */
export async function* companyJobsNewestFirst(
  companyId: string,
  storedStatuses: readonly StoredJobStatus[],
  nowMs: number,
  pageSize: number,
): AsyncGenerator<ListedJob> {
  const values: Record<string, unknown> = {
    ':pk': jobsOfCompanyIndex(companyId).gsi1pk,
    ':now': Math.floor(nowMs / 1000),
  };
  const statuses = storedStatuses.map((status, n) => {
    values[`:s${n}`] = status;
    return `:s${n}`;
  });
  const pages = queryPages({
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    ScanIndexForward: false,
    Limit: pageSize,
    ProjectionExpression: projected(listedAttributes),
    FilterExpression: `#status IN (${statuses.join(', ')}) AND (attribute_not_exists(#ttl) OR #ttl > :now)`,
    ExpressionAttributeNames: { '#status': 'status', '#error': 'error', '#ttl': ttlAttribute },
    ExpressionAttributeValues: values,
  });
  for await (const page of pages) for (const item of page) yield parseListed(item, listedAttributes);
}

/** One stored state to list from the per-state index, optionally only jobs created before `before`. */
export interface StateRange {
  state: StoredJobStatus;
  /** An ISO instant: only jobs created before it. */
  createdBefore?: string;
}

/**
 * The company's jobs in the given stored states, newest first: one Query per state on its per-state
 * index (gsi2), merged by creation time. Each state's read goes no further than the caller iterates,
 * so a page filtered by `status` costs about the jobs shown plus the few that read otherwise (active
 * jobs, results retention's boundary), not every job of the company.
 */
export async function* companyJobsInStatesNewestFirst(
  companyId: string,
  ranges: readonly StateRange[],
  nowMs: number,
  pageSize: number,
): AsyncGenerator<ListedJob> {
  const streams = ranges.map((range) => stateJobs(companyId, range, nowMs, pageSize));
  const heads = await Promise.all(streams.map((stream) => stream.next()));
  for (;;) {
    let newest: number | undefined;
    let newestKey = '';
    heads.forEach((head, n) => {
      if (head.done) return;
      const key = head.value.gsi2sk ?? '';
      if (newest === undefined || key > newestKey) [newest, newestKey] = [n, key];
    });
    if (newest === undefined) return;
    const head = heads[newest]!;
    if (!head.done) yield head.value;
    heads[newest] = await streams[newest]!.next();
  }
}

type IndexedJob = ListedJob & { gsi2sk?: string };
const stateAttributes = [...listedAttributes, 'gsi2sk'];

async function* stateJobs(
  companyId: string,
  range: StateRange,
  nowMs: number,
  pageSize: number,
): AsyncGenerator<IndexedJob> {
  const values: Record<string, unknown> = {
    ':pk': jobsOfCompanyInStateIndex(companyId, range.state).gsi2pk,
    ':now': Math.floor(nowMs / 1000),
  };
  let keyCondition = 'gsi2pk = :pk';
  if (range.createdBefore !== undefined) {
    keyCondition += ' AND gsi2sk < :before';
    values[':before'] = range.createdBefore;
  }
  const pages = queryPages({
    IndexName: 'gsi2',
    KeyConditionExpression: keyCondition,
    ScanIndexForward: false,
    Limit: pageSize,
    ProjectionExpression: projected(stateAttributes),
    FilterExpression: 'attribute_not_exists(#ttl) OR #ttl > :now',
    ExpressionAttributeNames: { '#status': 'status', '#error': 'error', '#ttl': ttlAttribute },
    ExpressionAttributeValues: values,
  });
  for await (const page of pages) for (const item of page) yield parseListed(item, stateAttributes);
}

/** The first day whose counts can still hold a listed job (completed jobs are kept longest). */
const firstCountedDay = (nowMs: number, limits: JobLimits): string =>
  utcDay(nowMs - (limits.completedKeptSeconds + 86400) * 1000);

/** The company's day counts from the first day that can still hold a listed job: one Query. */
export function readCompanyJobCounts(
  companyId: string,
  nowMs: number,
  limits: JobLimits,
): Promise<Map<string, DayCounts>> {
  return readJobCounts(companyId, firstCountedDay(nowMs, limits));
}
