// The bulk job item: its type, the values its writes are given (limits, a new job), its one read and
// its TTL. The rest lives beside it by concern: transitions.ts (status changes, with the day counts of
// day-counts.ts), slots-and-leases.ts, chunk-accounting.ts, probe-accounting.ts (writes) and
// probe-state.ts (reads) of the probe stage, listing.ts, and count-backfill.ts (a one-off migration).
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { tableName } from '../../clients/dynamodb';
import { send } from '../dynamodb';
import type { StoredItem } from '../entities/declare';
import { jobEntity } from '../entities/jobs';
import { jobKey, type ItemKey } from '../keys';
import { countedStatuses, dayEndMs, type CountedStatus } from './day-counts';
import type { JobDuplicates } from './duplicates';
import type { JobEstimateState } from './estimates';
import type { JobProbeState } from './probe-state';

/**
 * The bulk rules the table applies to jobs, decided in domain/bulk/limits.ts (`jobLimits`) and handed
 * to the writes that need them.
 */
export interface JobLimits {
  /** Active-job slots per company. */
  activeJobs: number;
  /** Seconds an unfinished job is kept after the end of its creation day, and a slot after its claim. */
  unfinishedKeptSeconds: number;
  /** Seconds a completed job is kept after the end of its completion day. */
  completedKeptSeconds: number;
}

/**
 * A count per bulk status (the five of docs/api.md, always all five keys): a job's running counts and
 * its final statistics, stored as they are (domain/bulk/statuses.ts names this shape `Statistics`).
 */
export type JobStatistics = Record<
  'safe' | 'block_bounce_risk' | 'some_risk' | 'dead_email' | 'do_not_mail_abuse',
  number
>;

/**
 * The CSV dialect the scan decided (domain/bulk/csv/dialect.ts `Dialect`), as the job stores it and its
 * readers (the status view, the results variants) read it back.
 */
export interface StoredDialect {
  delimiter: string;
  encoding: string;
  hasHeader: boolean;
  headerStart?: number;
  dataStart: number;
}

/**
 * Stored states; `expired` is derived on read from `uploadExpiresAtMs` (docs/api.md) and from
 * `completedAt` (results retention). `cancelled` is only ever seen between the two steps of a DELETE:
 * every bulk worker checks acceptsWork() and every conditional write requires `processing`, so a
 * cancelled job's chunks stop counting and writing.
 */
export type StoredJobStatus = 'awaiting_upload' | 'processing' | 'completed' | 'failed' | 'cancelled';

/** The object a job processes, pinned when the scan read it so a second PUT cannot change it. */
export interface ObjectPin {
  key: string;
  etag: string;
  versionId?: string;
  size: number;
}

export interface JobItem extends ItemKey {
  entity: 'job';
  jobId: string;
  companyId: string;
  status: StoredJobStatus;
  emailColumn: number;
  fileName?: string;
  callbackUrl?: string;
  createdAt: string;
  uploadExpiresAtMs: number;
  /** The active-job slot this job holds (jobSlotKey). */
  slot: number;
  totalEmails: number;
  /** Rows usage never counts (test addresses), added to by each chunk; absent: none. */
  uncountedEmails?: number;
  processedEmails: number;
  /** Running per-status counts, added to by each chunk. */
  counts: JobStatistics;
  /** Chunk index -> the part object of the attempt that counted, and its size. */
  partKeys: Record<string, string>;
  partBytes: Record<string, number>;
  doneChunks?: Set<number>;
  chunkCount?: number;
  startedAt?: string;
  deadlineAtMs?: number;
  lastProgressAt?: string;
  scanLeaseUntilMs?: number;
  assemblyLeaseUntilMs?: number;
  pin?: ObjectPin;
  dialect?: StoredDialect;
  completedAt?: string;
  statistics?: JobStatistics;
  resultKey?: string;
  error?: string;
  webhookQueuedAt?: string;
  /**
   * The UTC day whose counts hold this job (store/jobs/day-counts.ts): its creation day, its completion day
   * once completed. Absent on jobs created before the counts, until the backfill adds them.
   */
  countDay?: string;
  /** The status a DELETE cancelled the job from (so a DELETE finishing an interrupted one knows it). */
  cancelledFrom?: StoredJobStatus;
  ttl?: number;
  gsi1pk?: string;
  gsi1sk?: string;
  gsi2pk?: string;
  gsi2sk?: string;
}

/**
 * The one check every bulk worker (scan, chunk validation, probes, assembly) makes before it spends
 * work on a job or writes for it: the job exists and is processing. A deleted or cancelled job fails it.
 */
export function acceptsWork(job: JobItem | undefined): job is JobItem {
  return job !== undefined && job.status === 'processing';
}

/** A job as its creation gives it; `counts` has every status at zero (domain/bulk/statuses.ts). */
export type NewJob = Pick<
  JobItem,
  | 'jobId'
  | 'companyId'
  | 'emailColumn'
  | 'fileName'
  | 'callbackUrl'
  | 'createdAt'
  | 'uploadExpiresAtMs'
  | 'slot'
  | 'counts'
>;

export async function getJobItem(
  companyId: string,
  jobId: string,
  consistent = false,
): Promise<JobItem | undefined> {
  const out = await send<{ Item?: Record<string, unknown> }>(
    new GetCommand({ TableName: tableName(), Key: jobKey(companyId, jobId), ConsistentRead: consistent }),
  );
  const item = out.Item;
  return item && item.entity === 'job' ? parseJob(item) : undefined;
}

/** A whole job item as stored, with every attribute the job store's modules add to it as the job runs. */
export type StoredJob = JobItem & JobProbeState & JobEstimateState & JobDuplicates;

/** A whole job item read back (a Get, a BatchGet, ALL_NEW), checked against its entity. */
export const parseJob = (item: StoredItem): StoredJob => jobEntity.parse(item);

/**
 * When DynamoDB's TTL removes a job (and the list stops showing it): whole UTC days, so that the day
 * counts of day-counts.ts drop a day's jobs at the same instant. An unfinished job goes
 * `unfinishedKeptSeconds` after its creation day; a completed one `completedKeptSeconds` after its
 * completion day.
 */
export function jobTtlSeconds(countDay: string, completed: boolean, limits: JobLimits): number {
  const keptSeconds = completed ? limits.completedKeptSeconds : limits.unfinishedKeptSeconds;
  return Math.floor(dayEndMs(countDay) / 1000) + keptSeconds;
}

export const isCounted = (status: StoredJobStatus): status is CountedStatus =>
  (countedStatuses as readonly string[]).includes(status);
