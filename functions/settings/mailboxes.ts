// Settings of connected mailboxes and their placement tests (docs/mailboxes.md), spread into the
// schema of ../settings.ts.
import { z } from 'zod';

const int = (fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER) =>
  z.coerce.number().int().min(min).max(max).default(fallback);

export const mailboxSettings = {
  /** Test messages each connected mailbox sends a day, one recipient each (decisions: default 4). */
  PLACEMENT_TESTS_PER_DAY: int(4, 1, 50),
  /** The UTC hour of the daily placement run (the schedule's hour). */
  PLACEMENT_HOUR_UTC: int(6, 0, 23),
  /** Seconds between a day's sends and the first reading of the receivers (SQS: at most 900). */
  PLACEMENT_CHECK_DELAY_SECONDS: int(600, 0, 900),
  /** Readings of a receiver before a test still not found counts as not found. */
  PLACEMENT_CHECK_ATTEMPTS: int(8, 1, 48),
  /** Connect, greeting and login timeout of one IMAP or SMTP session. */
  MAILBOX_TIMEOUT_MS: int(15_000, 100),
};
