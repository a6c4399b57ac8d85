// The sync budget of a request to the single and batch endpoints.
import { settings } from '../../settings';

/** Time kept back from the Lambda's deadline to store the request and queue it after the budget. */
const RESERVE_MS = 3000;

/** SYNC_BUDGET_MS, cut so a 202 can still be written before the function (29 s) times out. */
export function budgetMs(remainingMs: number): number {
  return Math.min(settings().SYNC_BUDGET_MS, remainingMs - RESERVE_MS);
}
