// Validation usage, quota and credits (docs/usage.md).
// Every validated address counts once per company and UTC month: single validations when they complete
// (functions/store/validation-requests.ts counts it in the transaction that completes the request), bulk
// rows with a status when their job completes. Workspace endpoints never call this module.
import { systemClock, type Clock } from '../../clock';
import { z } from 'zod';
import { QuotaExceededError, ValidationError } from '../../errors';
import { settings } from '../../settings';
import {
  addCreditsToPlan,
  endJobReservation,
  readJobReservation,
  readUsageRecords,
  reserveJobRows,
  writePlanQuota,
} from '../../store/usage';
import { monthBounds, monthState, usageMonth, type MonthState } from './account';

export { usageMonth };
export { assertSingleValidationsLeft, countWithinQuota } from './sync-quota';

/** The plan's state for `month` (default: now's), as of now. */
async function stateOf(companyId: string, now: Date, month = usageMonth(now)): Promise<MonthState> {
  return monthState(
    await readUsageRecords(companyId),
    month,
    usageMonth(now),
    settings().DEFAULT_MONTHLY_QUOTA,
  );
}

/** Validations counted for the company in the month of `now`. */
export async function monthlyUsage(companyId: string, clock: Clock = systemClock): Promise<number> {
  const now = clock();
  return (await stateOf(companyId, now)).usage.validations;
}

// --- GET /v1/usage ----------------------------------------------------------------------------------

export const invalidMonthMessage = 'month must be a calendar month written YYYY-MM';

/** GET /v1/usage's query string. */
export const usageQuery = z.object({
  month: z
    .string()
    .regex(/^\d{4}-(0[1-9]|1[0-2])$/, invalidMonthMessage)
    .optional()
    .describe('The calendar month (UTC) to report, YYYY-MM; default: the current month'),
});

/** GET /v1/usage's 200 body. */
export const usageViewSchema = z.object({
  month: z.string().describe('YYYY-MM'),
  periodStart: z.string().describe('First instant of the month (UTC), inclusive'),
  periodEnd: z.string().describe('First instant of the next month (UTC), exclusive'),
  quota: z.number().int().nonnegative().describe('Validations included in the month'),
  creditsRemaining: z.number().int().nonnegative().describe('Prepaid credits left now'),
  remaining: z
    .number()
    .int()
    .nonnegative()
    .describe(
      'Validations still possible in the month: quota left plus credits (running bulk jobs hold theirs)',
    ),
  used: z.object({
    bulk: z.number().int().nonnegative(),
    single: z.number().int().nonnegative(),
    total: z.number().int().nonnegative(),
  }),
});
export type UsageView = z.infer<typeof usageViewSchema>;

export async function readUsage(
  companyId: string,
  query: z.infer<typeof usageQuery>,
  clock: Clock = systemClock,
): Promise<UsageView> {
  const now = clock();
  const state = await stateOf(companyId, now, query.month);
  const { start, end } = monthBounds(state.month);
  return {
    month: state.month,
    periodStart: start.toISOString(),
    periodEnd: end.toISOString(),
    quota: state.quota,
    creditsRemaining: state.creditsRemaining,
    remaining: state.remaining,
    used: { bulk: state.usage.bulk, single: state.usage.single, total: state.usage.validations },
  };
}

// --- Enforcement ------------------------------------------------------------------------------------

/**
 * Single and batch endpoints, before any work: 402 when quota plus credits cannot cover `count`
 * addresses (default one). Nothing to count (only test addresses): no check.
 */
export async function assertValidationsLeft(
  companyId: string,
  clock: Clock = systemClock,
  count = 1,
): Promise<void> {
  const now = clock();
  if (count <= 0) return;
  if ((await stateOf(companyId, now)).remaining < count) throw new QuotaExceededError();
}

/** The failed job's error when the file needs more validations than are left. */
const jobQuotaExceededError = (rows: number, left: number) =>
  `Validation quota exceeded: the file has ${rows} rows to validate and ${left} validations are left this month (quota plus credits). Nothing was counted. Add credits or wait for next month, then create a new job.`;

export type JobReservationOutcome = { ok: true } | { ok: false; error: string };

const RESERVE_ATTEMPTS = 8;

/**
 * Reserves `rows` validations for a processing job once its scan knows the count. Fails (nothing
 * consumed) when quota plus credits cannot cover them. A second call for the same job is a no-op.
 * Concurrent jobs re-read and try again when another reservation moved the month first.
 */
export async function reserveForJob(
  job: { companyId: string; jobId: string },
  rows: number,
  clock: Clock = systemClock,
): Promise<JobReservationOutcome> {
  for (let attempt = 1; attempt <= RESERVE_ATTEMPTS; attempt++) {
    const at = clock();
    const state = await stateOf(job.companyId, at);
    const left = Math.max(0, state.limit - state.usage.committed);
    if (rows > left) return { ok: false, error: jobQuotaExceededError(rows, left) };
    // 'already-reserved': the scan ran again (a taken-over lease); the first reservation stands.
    const outcome = await reserveJobRows(job, state.month, rows, state.limit - rows);
    if (outcome !== 'usage-changed') return { ok: true };
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt));
  }
  throw new Error(`Could not reserve ${rows} validations for job ${job.jobId}: the month kept changing`);
}

/** The part of a job these functions need; its status as the caller knows it (completed/failed are final). */
interface EndedJob {
  companyId: string;
  jobId: string;
  status: string;
}

/** A job's rows and those of them usage never counts (test addresses, duplicate rows). */
interface CountedRows {
  totalEmails: number;
  uncountedEmails?: number;
  duplicateEmails?: number;
  /** Duplicates that are test addresses: already among uncountedEmails. */
  duplicateTestEmails?: number;
}

/** The rows of a completed job that count: every row with a status but test addresses and duplicates. */
export function countedRows(job: CountedRows): number {
  const duplicates = (job.duplicateEmails ?? 0) - (job.duplicateTestEmails ?? 0);
  return job.totalEmails - (job.uncountedEmails ?? 0) - duplicates;
}

/**
 * A completed job: its rows with a status (`totalEmails`) but for test addresses and duplicates count in the month of
 * completion and its reservation ends, exactly once however often completion is redelivered. True when
 * this call counted.
 */
export async function countCompletedJob(
  job: EndedJob & CountedRows,
  clock: Clock = systemClock,
): Promise<boolean> {
  const now = clock();
  if (job.status !== 'completed') return false;
  const reservation = await readJobReservation(job.companyId, job.jobId);
  if (!reservation) return false;
  const counted = { month: usageMonth(now), count: countedRows(job) };
  return endJobReservation(reservation, counted);
}

/** A failed job gives its reservation back (once); nothing it validated counts. True when this call did. */
export async function releaseFailedJob(job: EndedJob): Promise<boolean> {
  if (job.status !== 'failed') return false;
  const reservation = await readJobReservation(job.companyId, job.jobId);
  if (!reservation) return false;
  return endJobReservation(reservation, undefined);
}

/**
 * A deleted job: rows count only when a job completes, so a completed one keeps its count (counting it
 * now if its completion had not) and any other gives its whole reservation back. `leftStatus`: the
 * status the DELETE cancelled it from. True when usage changed.
 */
export async function settleDeletedJob(
  job: Omit<EndedJob, 'status'> & CountedRows,
  leftStatus: string | undefined,
  clock: Clock = systemClock,
): Promise<boolean> {
  if (leftStatus === 'completed') return countCompletedJob({ ...job, status: 'completed' }, clock);
  const reservation = await readJobReservation(job.companyId, job.jobId);
  if (!reservation) return false;
  return endJobReservation(reservation, undefined);
}

// --- Operator (npm run admin) ---------------------------------------------------------------------

const nonNegativeInteger = (name: string, value: number) => {
  if (!Number.isSafeInteger(value) || value < 0)
    throw new ValidationError(`${name} must be a whole number >= 0`);
};

/** Sets the company's own monthly quota from the current month on; earlier months keep theirs. */
export async function setMonthlyQuota(
  companyId: string,
  monthlyQuota: number,
  clock: Clock = systemClock,
): Promise<void> {
  const now = clock();
  nonNegativeInteger('monthly quota', monthlyQuota);
  const records = await readUsageRecords(companyId);
  const current = usageMonth(now);
  const previous = records.plan.monthlyQuota ?? settings().DEFAULT_MONTHLY_QUOTA;
  const freeze = [...records.months.values()]
    .filter((m) => m.month < current && m.quota === undefined)
    .map((m) => ({ month: m.month, quota: previous }));
  await writePlanQuota(companyId, monthlyQuota, current, freeze);
}

/** Adds prepaid credits; returns the credits left afterwards. */
export async function addCredits(
  companyId: string,
  amount: number,
  clock: Clock = systemClock,
): Promise<number> {
  const now = clock();
  nonNegativeInteger('amount', amount);
  if (amount === 0) throw new ValidationError('amount must be at least 1');
  await addCreditsToPlan(companyId, amount);
  return (await stateOf(companyId, now)).creditsRemaining;
}
