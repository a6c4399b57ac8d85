// The five bulk statuses (spec part 1) and the statistics object built from them.

export const bulkStatuses = [
  'safe',
  'block_bounce_risk',
  'some_risk',
  'dead_email',
  'do_not_mail_abuse',
] as const;
export type BulkStatus = (typeof bulkStatuses)[number];

/** Always all five keys; their sum equals the job's totalEmails. */
export type Statistics = Record<BulkStatus, number>;

export function emptyStatistics(): Statistics {
  return { safe: 0, block_bounce_risk: 0, some_risk: 0, dead_email: 0, do_not_mail_abuse: 0 };
}

export function countStatuses(statuses: Iterable<BulkStatus>): Statistics {
  const counts = emptyStatistics();
  for (const status of statuses) counts[status]++;
  return counts;
}

export function isBulkStatus(value: unknown): value is BulkStatus {
  return typeof value === 'string' && (bulkStatuses as readonly string[]).includes(value);
}
