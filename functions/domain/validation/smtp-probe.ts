// Mailbox probe of the single endpoint and the catch-all test: the batch prober's session protocol
// (probe/smtp-session.ts: EHLO, STARTTLS, MAIL FROM, RCPT TO, QUIT; no DATA, nothing is ever sent),
// with greylisting (a temporary answer) retried after a delay within a bounded number of attempts.
import { randomBytes } from 'node:crypto';
import { countMetric } from '../../metrics';
import { proxyPoolFor } from '../probe/proxy-pool';
import { defaultBatchSessionOptions, probeBatch } from '../probe/smtp-session';
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
}

/** One recipient's outcome and the reply that decided it (null: no reply did, e.g. a timeout). */
export interface RecipientResult {
  probe: MailboxProbe;
  reply: SmtpReply | null;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Probes recipients at one mail host (`serverName`: its MX name, for TLS SNI); each gets its outcome.
 * Temporary answers are retried (greylisting wants the same triplet again after a pause) up to
 * greylistAttempts in total.
 */
export async function probeRecipients(
  addresses: readonly string[],
  recipients: readonly string[],
  o: SmtpProbeOptions,
  serverName?: string,
): Promise<RecipientResult[]> {
  countMetric('MailboxProbes', recipients.length);
  const results: RecipientResult[] = recipients.map(() => ({ probe: 'greylisted', reply: null }));
  const session = {
    ...defaultBatchSessionOptions,
    port: o.port,
    timeoutMs: o.timeoutMs,
    heloName: o.heloName,
    mailFrom: o.mailFrom,
    proxies: proxyPoolFor(o.socksProxy),
  };
  let pending = recipients.map((_, i) => i);
  for (let attempt = 1; attempt <= Math.max(1, o.greylistAttempts) && pending.length > 0; attempt++) {
    if (attempt > 1) await sleep(o.greylistDelayMs);
    const batch = await probeBatch(
      addresses,
      pending.map((i) => recipients[i] ?? ''),
      session,
      {},
      serverName,
    );
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
