// Usage storage: a company's plan item and its month items (keys in ./keys.ts), read together by one
// Query on the `USAGE#` prefix. A month item holds
//   validations  validated addresses counted this month (single + bulk)
//   single, bulk the same split by source
//   reserved     rows held by bulk jobs that are still running
//   committed    validations + reserved: DynamoDB conditions cannot add, so the sum is kept as a field
//                and a reservation's condition compares it with a bound the caller computed
//   quota        the month's quota, frozen when the plan changes (absent: the plan's current quota)
// A running bulk job's reservation is its own item (usageReservationKey), created and ended each in
// one transaction with the month items, conditioned on it not existing / existing so each happens
// once. The job item stays out of them, so they never conflict with the validators' writes to it.
import { systemClock, type Clock } from '../clock';
import {
  GetCommand,
  TransactWriteCommand,
  UpdateCommand,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { tableName } from '../clients/dynamodb';
import { cancellationReasons, isTransactionConflict } from './conditions';
import { queryAll, send } from './dynamodb';
import { epochSeconds } from './table';
import { usageMonthEntity, usagePlanEntity, usageReservationEntity } from './entities/usage';
import { planKey, usageKey, usagePrefix, usageReservationKey } from './keys';

export interface MonthUsage {
  month: string;
  validations: number;
  single: number;
  bulk: number;
  reserved: number;
  committed: number;
  quota?: number;
}

export interface StoredPlan {
  /** The company's own quota; undefined: DEFAULT_MONTHLY_QUOTA. */
  monthlyQuota?: number;
  /** Credits ever added; what is left is this minus every month's use beyond its quota. */
  creditsAdded: number;
}

export interface UsageRecords {
  plan: StoredPlan;
  /** Month items by `YYYY-MM`. */
  months: Map<string, MonthUsage>;
}

export type UsageSource = 'single' | 'bulk';
type Counter = 'validations' | 'single' | 'bulk' | 'reserved' | 'committed';
export type MonthDelta = Partial<Record<Counter, number>>;

const monthPattern = /^\d{4}-\d{2}$/;

/** The plan and every month item of the company (strongly consistent: enforcement reads it). */
export async function readUsageRecords(companyId: string): Promise<UsageRecords> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': planKey(companyId).pk, ':prefix': usagePrefix },
    ConsistentRead: true,
  });
  const plan: StoredPlan = { creditsAdded: 0 };
  const months = new Map<string, MonthUsage>();
  for (const item of items) {
    const suffix = String(item.sk).slice(usagePrefix.length);
    if (item.sk === planKey(companyId).sk) {
      const stored = usagePlanEntity.parse(item);
      plan.creditsAdded = stored.creditsAdded ?? 0;
      if (stored.monthlyQuota !== undefined) plan.monthlyQuota = stored.monthlyQuota;
    } else if (monthPattern.test(suffix)) {
      const month = usageMonthEntity.parse(item);
      const validations = month.validations ?? 0;
      const reserved = month.reserved ?? 0;
      months.set(suffix, {
        month: suffix,
        validations,
        single: month.single ?? 0,
        bulk: month.bulk ?? 0,
        reserved,
        // Items written before `committed` existed hold validations only.
        committed: month.committed ?? validations + reserved,
        ...(month.quota === undefined ? {} : { quota: month.quota }),
      });
    }
  }
  return { plan, months };
}

/** The update that adds `delta` to a month item (creating it); usable inside a transaction. */
export function monthUpdate(
  companyId: string,
  month: string,
  delta: MonthDelta,
): UpdateCommandInput & { UpdateExpression: string } {
  const names: Record<string, string> = { '#type': 'type' };
  const values: Record<string, unknown> = { ':type': 'usage' };
  const adds: string[] = [];
  for (const [counter, amount] of Object.entries(delta)) {
    if (!amount) continue;
    names[`#${counter}`] = counter;
    values[`:${counter}`] = amount;
    adds.push(`#${counter} :${counter}`);
  }
  return {
    TableName: tableName(),
    Key: usageKey(companyId, month),
    UpdateExpression: `SET #type = :type${adds.length ? ` ADD ${adds.join(', ')}` : ''}`,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
}

/** Adds `delta` to a month's counters on its own (seeding demo and test data). */
export async function addToMonth(companyId: string, month: string, delta: MonthDelta): Promise<void> {
  await send(new UpdateCommand(monthUpdate(companyId, month, delta)));
}

/** One counted validation from `source` in `month`: the counters a completed validation adds. */
export function countedDelta(source: UsageSource, count: number): MonthDelta {
  return { validations: count, [source]: count, committed: count };
}

/**
 * Sets the company's own monthly quota. Months that have no frozen quota yet get the one they were
 * used under (`freeze`), so a plan change never rewrites past months; the current month takes the new one.
 */
export async function writePlanQuota(
  companyId: string,
  monthlyQuota: number,
  currentMonth: string,
  freeze: { month: string; quota: number }[],
): Promise<void> {
  for (const { month, quota } of freeze) {
    await send(
      new UpdateCommand({
        TableName: tableName(),
        Key: usageKey(companyId, month),
        UpdateExpression: 'SET quota = if_not_exists(quota, :quota)',
        ExpressionAttributeValues: { ':quota': quota },
      }),
    );
  }
  await send(
    new TransactWriteCommand({
      TransactItems: [
        {
          Update: {
            TableName: tableName(),
            Key: planKey(companyId),
            UpdateExpression: 'SET #type = :plan, monthlyQuota = :quota',
            ExpressionAttributeNames: { '#type': 'type' },
            ExpressionAttributeValues: { ':plan': 'plan', ':quota': monthlyQuota },
          },
        },
        {
          Update: {
            ...monthUpdate(companyId, currentMonth, {}),
            UpdateExpression: 'SET #type = :type, quota = :quota',
            ExpressionAttributeValues: { ':type': 'usage', ':quota': monthlyQuota },
          },
        },
      ],
    }),
  );
}

/** Adds credits to the company's balance; returns the credits ever added. */
export async function addCreditsToPlan(companyId: string, amount: number): Promise<number> {
  const out = await send<{ Attributes?: Record<string, unknown> }>(
    new UpdateCommand({
      TableName: tableName(),
      Key: planKey(companyId),
      UpdateExpression: 'SET #type = :plan ADD creditsAdded :amount',
      ExpressionAttributeNames: { '#type': 'type' },
      ExpressionAttributeValues: { ':plan': 'plan', ':amount': amount },
      ReturnValues: 'ALL_NEW',
    }),
  );
  return usagePlanEntity.parsePart(out.Attributes ?? {}, ['creditsAdded']).creditsAdded ?? 0;
}

/** Which condition cancelled a transaction: the index of its first failed item, or undefined. */
function failedItem(error: unknown): number | undefined {
  const index = (cancellationReasons(error) ?? []).findIndex((r) => r.Code === 'ConditionalCheckFailed');
  return index < 0 ? undefined : index;
}

export type ReserveOutcome = 'reserved' | 'already-reserved' | 'usage-changed';

/** Reservations outlive any job (jobs are kept 30 days); the item expires after this. */
const RESERVATION_TTL_SECONDS = 45 * 86400;

/**
 * Holds `rows` validations of `month` for a job that holds none yet, if the month's committed count
 * is still at most `maxCommittedBefore` (the bound that leaves room for the rows). One transaction:
 * of two jobs racing for the last credits, the second finds `committed` moved.
 */
export async function reserveJobRows(
  job: { companyId: string; jobId: string },
  month: string,
  rows: number,
  maxCommittedBefore: number,
  clock: Clock = systemClock,
): Promise<ReserveOutcome> {
  const usage = monthUpdate(job.companyId, month, { reserved: rows, committed: rows });
  try {
    await send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: tableName(),
              Item: {
                ...usageReservationKey(job.companyId, job.jobId),
                type: 'usageReservation',
                jobId: job.jobId,
                rows,
                month,
                ttl: epochSeconds(clock()) + RESERVATION_TTL_SECONDS,
              },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          {
            Update: {
              ...usage,
              ConditionExpression: 'attribute_not_exists(#committed) OR #committed <= :max',
              ExpressionAttributeNames: { ...usage.ExpressionAttributeNames, '#committed': 'committed' },
              ExpressionAttributeValues: { ...usage.ExpressionAttributeValues, ':max': maxCommittedBefore },
            },
          },
        ],
      }),
    );
    return 'reserved';
  } catch (error) {
    const failed = failedItem(error);
    if (failed === 0) return 'already-reserved';
    if (failed === 1 || isTransactionConflict(error)) return 'usage-changed';
    throw error;
  }
}

/** A job's reservation. */
export interface JobReservation {
  companyId: string;
  jobId: string;
  rows: number;
  month: string;
}

/** The job's reservation, or undefined when it holds none (never had one, or it ended). */
export async function readJobReservation(
  companyId: string,
  jobId: string,
): Promise<JobReservation | undefined> {
  const { Item } = await send<{ Item?: Record<string, unknown> }>(
    new GetCommand({
      TableName: tableName(),
      Key: usageReservationKey(companyId, jobId),
      ConsistentRead: true,
    }),
  );
  if (!Item) return undefined;
  const { rows, month } = usageReservationEntity.parse(Item);
  return { companyId, jobId, rows, month };
}

/**
 * Tries of a transaction that ends a job's reservation: the month item it updates is shared by every
 * concurrent job and validation of the company, so it meets other transactions more than most.
 */
const usageWriteAttempts = 8;

/**
 * Ends a job's reservation once, in one transaction: the reservation item goes (conditioned on it
 * existing), its month gives the rows back, and `counted` validations are added to `counted.month`.
 * Returns false when the reservation had already ended.
 */
export async function endJobReservation(
  reservation: JobReservation,
  counted: { month: string; count: number } | undefined,
): Promise<boolean> {
  const { companyId, jobId, rows, month } = reservation;
  const release: MonthDelta = { reserved: -rows, committed: -rows };
  const updates: ReturnType<typeof monthUpdate>[] = [];
  if (counted && counted.month === month) {
    updates.push(monthUpdate(companyId, month, sumDeltas(release, countedDelta('bulk', counted.count))));
  } else {
    updates.push(monthUpdate(companyId, month, release));
    if (counted && counted.count > 0)
      updates.push(monthUpdate(companyId, counted.month, countedDelta('bulk', counted.count)));
  }
  try {
    await send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Delete: {
              TableName: tableName(),
              Key: usageReservationKey(companyId, jobId),
              ConditionExpression: 'attribute_exists(pk)',
            },
          },
          ...updates.map((Update) => ({ Update })),
        ],
      }),
      usageWriteAttempts,
    );
    return true;
  } catch (error) {
    if (failedItem(error) === 0) return false;
    throw error;
  }
}

function sumDeltas(a: MonthDelta, b: MonthDelta): MonthDelta {
  const out: MonthDelta = { ...a };
  for (const [counter, amount] of Object.entries(b) as [Counter, number][])
    out[counter] = (out[counter] ?? 0) + amount;
  return out;
}
