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

export function countStatuses(statuses: Iterable<BulkStatus>): Statistics {
  const counts = emptyStatistics();
  for (const status of statuses) counts[status]++;
  return counts;
}
