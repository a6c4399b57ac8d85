// A scheduled email's recipient judged by the validation engine the API uses, once per verdict-cache
// life (PROBE_CACHE_DAYS): a recipient seen again within it is not validated again. Each validation
// counts in the company's usage as a single validation (test addresses never do).
import type { Clock } from '../../clock';
import { settings } from '../../settings';
import { readVerdict, putVerdict } from '../../store/safety-net';
import { addToMonth, countedDelta } from '../../store/usage';
import { singleEngine, type Validator } from '../single-validation/engine';
import { usageMonth } from '../usage';
import { isTestAddress } from '../validation/test-addresses';

export interface RecipientVerdict {
  status: string;
  reason: string;
  /** true when this call ran the engine (and counted it). */
  validated: boolean;
}

/** The statuses the Safety Net stops (docs/safety-net.md). */
export const riskyStatuses = new Set(['block_bounce_risk', 'dead_email', 'do_not_mail_abuse']);

export async function recipientVerdict(
  companyId: string,
  email: string,
  clock: Clock,
  engine: Validator = singleEngine(),
): Promise<RecipientVerdict> {
  const now = clock();
  const remembered = await readVerdict(companyId, email, now);
  if (remembered) return { status: remembered.status, reason: remembered.reason, validated: false };
  const outcome = await engine.validate(email, { companyId, requestedAt: now });
  const { status, reason } = outcome.result;
  const validatedAt = clock();
  if (!isTestAddress(email)) await addToMonth(companyId, usageMonth(validatedAt), countedDelta('single', 1));
  const lifeDays = settings().PROBE_CACHE_DAYS;
  if (lifeDays > 0)
    await putVerdict(
      companyId,
      { email, status, reason, validatedAt: validatedAt.toISOString() },
      new Date(validatedAt.getTime() + lifeDays * 86_400_000),
    );
  return { status, reason, validated: true };
}
