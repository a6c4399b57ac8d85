// The five bulk statuses (docs/api.md; the engine's one list) and the statistics object built from them.
import type { JobStatistics } from '../../store/jobs/item';
import { STATUSES, type Status } from '../validation/types';

export const bulkStatuses = STATUSES;
export type BulkStatus = Status;

/** Always all five keys; their sum equals the job's totalEmails. Stored as it is (store/jobs.ts). */
export type Statistics = JobStatistics;

export function emptyStatistics(): Statistics {
  return { safe: 0, block_bounce_risk: 0, some_risk: 0, dead_email: 0, do_not_mail_abuse: 0 };
}

export function countStatuses(statuses: readonly (BulkStatus | { status: BulkStatus })[]): Statistics {
  const counts = emptyStatistics();
  // a run of equal statuses is added at once: `counts[status]++` by a variable key is a slow lookup, and
  // neighbouring rows mostly share a status. An index, not for-of: a worker runs this a few times, much
  // of it before the optimizer has the loop, where each step of an iterator is an object.
  let last: BulkStatus | undefined;
  let run = 0;
  for (let index = 0; index < statuses.length; index++) {
    const item = statuses[index]!;
    // a status, or a verdict (the validator counts its verdicts as they are)
    const status = typeof item === 'string' ? item : item.status;
    if (status === last) {
      run++;
      continue;
    }
    if (last !== undefined) counts[last] += run;
    last = status;
    run = 1;
  }
  if (last !== undefined) counts[last] += run;
  return counts;
}
