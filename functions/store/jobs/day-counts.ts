// A company's bulk jobs counted by stored status, one small item per UTC day (keys.ts jobCountKey), so
// the job list's `total` is one Query however many jobs the company has. Every write that creates a job
// or moves it between statuses is one transaction with its day item(s) (writeCounted), so the counts
// move exactly when the job items do.
import {
  PutCommand,
  TransactWriteCommand,
  UpdateCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { tableName } from '../../clients/dynamodb';
import { queryAll, send, wroteIf } from '../dynamodb';
import { jobCountDayEntity } from '../entities/jobs';
import { jobCountKey, jobCountPrefix } from '../keys';
import { ttlAttribute } from '../table';

/** The stored statuses the list shows (a cancelled job is on its way out and counts nowhere). */
export const countedStatuses = ['awaiting_upload', 'processing', 'completed', 'failed'] as const;
export type CountedStatus = (typeof countedStatuses)[number];
export type DayCounts = Record<CountedStatus, number>;

/** One job entering (+1) or leaving (-1) a status in a day's counts. */
export interface CountDelta {
  day: string;
  status: CountedStatus;
  by: 1 | -1;
}

/** A day item outlives every job it counts (a completed job is kept 37 days after its day ends). */
const DAY_ITEM_KEPT_SECONDS = 38 * 86400;
const WRITE_ATTEMPTS = 8;
/** The last day a count range can reach: day items sort before any other JOBCOUNT# item. */
const lastDay = '9999-12-31';

/** The UTC day (YYYY-MM-DD) of an instant. */
export const utcDay = (at: string | number | Date): string => new Date(at).toISOString().slice(0, 10);
/** The instant (epoch ms) a UTC day ends. */
export const dayEndMs = (day: string): number => Date.parse(`${day}T00:00:00.000Z`) + 86_400_000;

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];
type TransactUpdate = NonNullable<TransactItem['Update']>;

function dayUpdates(companyId: string, deltas: CountDelta[]): TransactUpdate[] {
  const byDay = new Map<string, Map<CountedStatus, number>>();
  for (const { day, status, by } of deltas) {
    const counts = byDay.get(day) ?? new Map<CountedStatus, number>();
    counts.set(status, (counts.get(status) ?? 0) + by);
    byDay.set(day, counts);
  }
  return [...byDay].map(([day, counts]) => {
    const names: Record<string, string> = { '#ttl': ttlAttribute };
    const values: Record<string, unknown> = {
      ':entity': 'jobCount',
      ':ttl': Math.floor(dayEndMs(day) / 1000) + DAY_ITEM_KEPT_SECONDS,
    };
    const adds = [...counts].map(([status, by], n) => {
      names[`#s${n}`] = status;
      values[`:v${n}`] = by;
      return `#s${n} :v${n}`;
    });
    return {
      TableName: tableName(),
      Key: jobCountKey(companyId, day),
      UpdateExpression: `SET entity = :entity, #ttl = :ttl ADD ${adds.join(', ')}`,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    };
  });
}

/** A conditional write of a job item. */
export type JobWrite = { Put: NonNullable<TransactItem['Put']> } | { Update: TransactUpdate };

/**
 * One job write and the count changes it makes, in one transaction (a plain conditional write when it
 * changes no count). False when a condition did not hold; a transaction that met another one on a day
 * item (two jobs of a company moving at once) is tried again.
 */
export async function writeCounted(
  companyId: string,
  write: JobWrite,
  deltas: CountDelta[],
): Promise<boolean> {
  if (deltas.length === 0)
    return wroteIf(send('Put' in write ? new PutCommand(write.Put) : new UpdateCommand(write.Update)));
  const TransactItems = [write, ...dayUpdates(companyId, deltas).map((Update) => ({ Update }))];
  return wroteIf(send(new TransactWriteCommand({ TransactItems }), WRITE_ATTEMPTS));
}

/**
 * The company's day items from `fromDay` on: one Query of a few small items. (The range ends before
 * `JOBCOUNT#BACKFILLED`, a marker earlier releases wrote per company and nothing reads now.)
 */
export async function readJobCounts(companyId: string, fromDay: string): Promise<Map<string, DayCounts>> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    ExpressionAttributeValues: {
      ':pk': jobCountKey(companyId, fromDay).pk,
      ':from': jobCountKey(companyId, fromDay).sk,
      ':to': jobCountKey(companyId, lastDay).sk,
    },
    ConsistentRead: true,
  });
  const days = new Map<string, DayCounts>();
  for (const item of items) {
    const day = jobCountDayEntity.parse(item);
    days.set(day.sk.slice(jobCountPrefix.length), {
      awaiting_upload: day.awaiting_upload ?? 0,
      processing: day.processing ?? 0,
      completed: day.completed ?? 0,
      failed: day.failed ?? 0,
    });
  }
  return days;
}
