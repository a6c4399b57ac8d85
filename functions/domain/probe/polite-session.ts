// One politeness for every path (docs/validation.md, "One politeness for every path"): the catch-all
// test, the single and batch endpoints' mailbox probes and the bulk probe stage all open their sessions
// at an MX host through the same per-host limits (sessions at once, RCPT per second, RCPT per session
// as the host taught), kept in the table for every invocation (store/mx-politeness.ts).
import { systemStopwatch } from '../../clock';
import type { Settings } from '../../settings';
import { tablePoliteness } from '../../store/mx-politeness';
import type { SessionLease } from '../../store/mx-politeness';
import { rcptPacer, type Politeness } from './politeness';
import { probeBatch, type BatchOutcome, type BatchSessionOptions } from './smtp-session';

/** A session lasts at most a function's time budget: a lease not released frees itself after it. */
const sessionLeaseMs = 150_000;
/** How often a caller waiting for a free session slot at a host asks again. */
const slotPollMs = 200;
/**
 * A session slot is released this long after the connection closed: the server counts a session until
 * its process for it has ended (Exim's smtp_accept_max_per_host, Postfix's anvil), a little after the
 * socket closed, and the next session through the slot must not meet it still counted.
 */
const leaseGraceMs = 100;

/** Releases a session lease once the server has had time to see its session end. */
export async function releaseAfterGrace(politeness: Politeness, lease: SessionLease): Promise<void> {
  await sleep(leaseGraceMs);
  await politeness.releaseSession(lease);
}

/** The politeness state of the deployment, from the settings (SMTP_MAX_SESSIONS_PER_HOST, ...). */
export function politenessFromSettings(s: Settings): Politeness {
  return tablePoliteness({
    maxSessionsPerHost: s.SMTP_MAX_SESSIONS_PER_HOST,
    rcptPerSecondPerHost: s.SMTP_RCPT_PER_SECOND_PER_HOST,
    leaseMs: sessionLeaseMs,
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * probeBatch at `host` within its limits: waits up to `waitMs` for a session slot (null: none came
 * free), sends RCPT in booked slots, carries at most the RCPT per session the host takes, and keeps
 * what the host taught. Never throws for the host's sake; the store's errors propagate.
 */
export async function politeBatch(
  politeness: Politeness,
  host: string,
  addresses: readonly string[],
  recipients: readonly string[],
  session: BatchSessionOptions,
  waitMs: number,
  shouldStop: () => boolean = () => false,
): Promise<BatchOutcome | null> {
  const until = systemStopwatch() + waitMs;
  let lease = await politeness.acquireSession(host);
  while (!lease && systemStopwatch() < until && !shouldStop()) {
    await sleep(slotPollMs);
    lease = await politeness.acquireSession(host);
  }
  if (!lease) return null;
  let outcome: BatchOutcome;
  try {
    const limits = await politeness.hostLimits(host);
    outcome = await probeBatch(
      addresses,
      recipients,
      {
        ...session,
        maxRecipientsPerSession: Math.min(
          session.maxRecipientsPerSession,
          limits.rcptPerSession ?? Number.POSITIVE_INFINITY,
        ),
      },
      { shouldStop, rcptWindow: rcptPacer(politeness, host, recipients.length, shouldStop) },
      host,
    );
  } finally {
    await releaseAfterGrace(politeness, lease);
  }
  await politeness.learn(host, outcome.learned);
  return outcome;
}
