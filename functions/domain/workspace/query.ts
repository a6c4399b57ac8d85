// Query-string parameters of the workspace endpoints (docs/api.md), parsed with zod.
// Every bad value is a 400 whose message names the parameter; unknown parameters are ignored.
import { z } from 'zod';
import { ValidationError } from '../../errors';
import { addDays, daysBetween, isDate, reputationRangeNames, utcDate } from './dates';
import type { DateWindow } from './dates';

const digits = /^\d+$/;

function integerMessage(name: string, min: number, max: number): string {
  return max === Number.MAX_SAFE_INTEGER
    ? `${name} must be an integer of at least ${min}`
    : `${name} must be an integer between ${min} and ${max}`;
}

function integer(name: string, min: number, max: number, fallback: number) {
  const message = integerMessage(name, min, max);
  return z
    .string()
    .regex(digits, { error: message })
    .transform(Number)
    .pipe(z.number().min(min, { error: message }).max(max, { error: message }))
    .default(fallback);
}

/** The 400 text of a parameter outside its list of values. */
export const oneOfMessage = (name: string, values: readonly string[]) =>
  `${name} must be one of ${values.join(', ')}`;

function oneOf<const T extends readonly [string, ...string[]]>(name: string, values: T) {
  return z.enum(values, { error: oneOfMessage(name, values) });
}

export const pagingParams = {
  limit: integer('limit', 1, 1000, 50),
  offset: integer('offset', 0, Number.MAX_SAFE_INTEGER, 0),
};

/** The 400 texts of a bad limit or offset. */
export const pagingErrors = [
  integerMessage('limit', 1, 1000),
  integerMessage('offset', 0, Number.MAX_SAFE_INTEGER),
];

export const booleanParam = (name: string) =>
  oneOf(name, ['true', 'false']).transform((value) => value === 'true');

export const enumParam = oneOf;

export const reputationRangeParam = oneOf('reputationRange', reputationRangeNames).default('last30Days');

const dateMessage = (name: string) => `${name} must be a date in YYYY-MM-DD format`;
const dateParam = (name: string) =>
  z
    .string()
    .refine(isDate, { error: dateMessage(name) })
    .optional();

/** Parses the query with an object schema; the first problem becomes the 400 message. */
export function parseQuery<S extends z.ZodObject>(schema: S, query: Record<string, string>): z.infer<S> {
  const parsed = schema.safeParse(query);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const name = String(issue?.path[0] ?? 'query');
    throw new ValidationError(
      issue?.message && issue.code !== 'invalid_type' ? issue.message : `${name} is invalid`,
    );
  }
  return parsed.data;
}

export const listQuery = <E extends z.ZodRawShape>(extra: E) => z.object({ ...pagingParams, ...extra });

/** The longest detail window served (ten years of daily points). */
const maxWindowDays = 3660;

/** startDate/endDate of a detail call (GET .../{id}): both optional. */
export const detailWindowQuery = z.object({
  startDate: dateParam('startDate').describe('Default: 89 days before endDate'),
  endDate: dateParam('endDate').describe('Default: today (UTC)'),
});

/** The 400 texts of a bad detail window. */
export const windowErrors = [
  dateMessage('startDate'),
  dateMessage('endDate'),
  'startDate must not be after endDate',
  `startDate to endDate must span at most ${maxWindowDays} days`,
] as const;

/** startDate/endDate of a detail call: endDate defaults to today, startDate to 89 days before endDate. */
export function parseDetailWindow(query: Record<string, string>, now: Date): DateWindow {
  const { startDate, endDate } = parseQuery(detailWindowQuery, query);
  const end = endDate ?? utcDate(now);
  const start = startDate ?? addDays(end, -89);
  if (start > end) throw new ValidationError(windowErrors[2]);
  if (daysBetween(start, end) + 1 > maxWindowDays) throw new ValidationError(windowErrors[3]);
  return { startDate: start, endDate: end };
}
