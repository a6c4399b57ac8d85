// Mailbox probe of the single endpoint and the catch-all test: the batch prober's session protocol
// (probe/smtp-session.ts: EHLO, STARTTLS, MAIL FROM, RCPT TO, QUIT; no DATA, nothing is ever sent),
// within the host's politeness limits shared with the bulk probe stage (probe/polite-session.ts),
// with greylisting (a temporary answer, "too many connections" too) retried after a delay within a
// bounded number of attempts.
import { randomBytes } from 'node:crypto';
import { countMetric } from '../../metrics';
import { proxyPoolFor } from '../probe/proxy-pool';
import type { Politeness } from '../probe/politeness';
import { politeBatch } from '../probe/polite-session';
import { defaultBatchSessionOptions } from '../probe/smtp-session';
import type { SmtpReply } from './smtp-reply';
import type { MailboxProbe } from './types';

export interface SmtpProbeOptions {
  port: number;
  /** Per step: connect, greeting and each reply. */
  timeoutMs: number;
  heloName: string;
  mailFrom: string;
  /** socks5://[user:pass@]host:port */
  socksProxy?: string;
  /** Total attempts when the server answers 4xx (greylisting), and the wait between them. */
  greylistAttempts: number;
  greylistDelayMs: number;
  /** RCPT per session (SMTP_RECIPIENTS_PER_SESSION). */
  maxRecipientsPerSession?: number;
}

/** One recipient's outcome and the reply that decided it (null: no reply did, e.g. a timeout). */
export interface RecipientResult {
  probe: MailboxProbe;
  reply: SmtpReply | null;
}

/**
 * How long a probe waits for a free session slot at its host, in step timeouts: other calls' sessions
 * there (a burst of single calls, a batch of one company's addresses) take about a step each.
 */
const slotWaitSteps = 3;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Probes recipients at one mail host (`serverName`: its MX name, for TLS SNI and the politeness key);
 * each gets its outcome. Temporary answers are retried (greylisting wants the same triplet again after
 * a pause) up to greylistAttempts in total. No session slot free at the host within a few step
 * timeouts: not_attempted (the domain's verdict stands).
 */
export async function probeRecipients(
  addresses: readonly string[],
  recipients: readonly string[],
  o: SmtpProbeOptions,
  politeness: Politeness,
  serverName?: string,
): Promise<RecipientResult[]> {
  countMetric('MailboxProbes', recipients.length);
  const results: RecipientResult[] = recipients.map(() => ({ probe: 'not_attempted', reply: null }));
  const session = {
    ...defaultBatchSessionOptions,
    port: o.port,
    timeoutMs: o.timeoutMs,
    heloName: o.heloName,
    mailFrom: o.mailFrom,
    proxies: proxyPoolFor(o.socksProxy),
    maxRecipientsPerSession: o.maxRecipientsPerSession ?? defaultBatchSessionOptions.maxRecipientsPerSession,
  };
  const host = (serverName ?? addresses[0] ?? '').toLowerCase();
  let pending = recipients.map((_, i) => i);
  for (let attempt = 1; attempt <= Math.max(1, o.greylistAttempts) && pending.length > 0; attempt++) {
    if (attempt > 1) await sleep(o.greylistDelayMs);
    const batch = await politeBatch(
      politeness,
      host,
      addresses,
      pending.map((i) => recipients[i] ?? ''),
      session,
      slotWaitSteps * o.timeoutMs,
    );
    // every slot at the host held (by other calls, by the bulk stage) for a whole step: not probed
    if (!batch) break;
    const still: number[] = [];
    for (const i of pending) {
      const rcpt = recipients[i] ?? '';
      const probe = batch.outcomes.get(rcpt) ?? 'error';
      results[i] = { probe, reply: batch.replies.get(rcpt) ?? null };
      if (probe === 'greylisted') still.push(i);
    }
    pending = still;
  }
  return results;
}

/** A local part no one has: if the server accepts it, it accepts everything (catch-all). */
export function randomLocalPart(): string {
  return `mailvet-probe-${randomBytes(8).toString('hex')}`;
}
