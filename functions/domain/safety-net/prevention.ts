// The look-ahead (the runSafetyNet consumer, kind 'lookahead'; a webhook queues one at once): every
// email scheduled and not yet sent, read from the platform, is checked and the risky ones are stopped.
// Primary course:
//   1. the scheduled emails (adapter); which mailboxes and sequences have the Safety Net on (the lists)
//   2. for each protected email (its sending mailbox or its sequence activated) not prevented before and
//      whose recipient is not allowlisted: the recipient's verdict (verdicts.ts)
//   3. a risky verdict (block_bounce_risk, dead_email, do_not_mail_abuse): stop it on the platform,
//      record the prevention (once per platform email), and tell the sending mailbox's owner
import { randomUUID } from 'node:crypto';
import { eachLimited } from '../../concurrency';
import {
  isAllowed,
  putPreventionIfNew,
  readConnection,
  readPrevention,
  type SafetyNetPlatform,
} from '../../store/safety-net';
import { readSafetyNetMailboxes, readSafetyNetSequences } from '../../store/workspace';
import { sendEmail } from '../mail/send-email';
import type { SafetyNetMessage } from './messages';
import type { PlatformAdapter, ScheduledEmail } from './platforms/types';
import { adapterFor, withConnectionState, type Deps, type WorkOutcome } from './sync';
import { recipientVerdict, riskyStatuses, type RecipientVerdict } from './verdicts';

export interface Protection {
  mailboxes: Set<string>;
  sequences: Set<string>;
}

/** The addresses and sequences with the Safety Net on, for one platform. */
async function protectionOf(companyId: string, platform: SafetyNetPlatform): Promise<Protection> {
  const [mailboxes, sequences] = await Promise.all([
    readSafetyNetMailboxes(companyId),
    readSafetyNetSequences(companyId),
  ]);
  return {
    // one entry merged every case variant: switching it on protects all of them
    mailboxes: new Set(mailboxes.filter((m) => m.activated).map((m) => m.email.toLowerCase())),
    sequences: new Set(
      sequences.filter((s) => s.activated && s.service === platform).map((s) => s.crmSequenceId),
    ),
  };
}

export function isProtected(email: ScheduledEmail, protection: Protection): boolean {
  return (
    protection.mailboxes.has(email.mailbox.toLowerCase()) ||
    (email.sequence !== null && protection.sequences.has(email.sequence.crmSequenceId))
  );
}

const explanations: Record<string, string> = {
  block_bounce_risk:
    'This address would hard-bounce. Every bounce counts against the sending mailbox and its domain with the receiving providers.',
  dead_email:
    'The domain accepts mail for any address, but this mailbox is dead: nobody will read the email, and such addresses are often turned into spam traps.',
  do_not_mail_abuse:
    'This address is likely to report the email as spam (an abuse or complaint address, or a known complainer or trap). Spam reports hurt the sender more than bounces.',
};

function explanationOf(verdict: Pick<RecipientVerdict, 'status' | 'reason'>): string {
  return `${explanations[verdict.status] ?? 'This address is risky to send to.'} (mailvet reason: ${verdict.reason})`;
}

function preventionEmailText(input: {
  mailbox: string;
  prospect: string;
  date: string;
  reason: string;
  explanation: string;
  platform: string;
  sequence: string | null;
}): string {
  return [
    'The mailvet Safety Net stopped an email before it was sent.',
    '',
    `Sending mailbox: ${input.mailbox}`,
    `Prospect: ${input.prospect}`,
    `Prevented on: ${input.date}`,
    `Platform: ${input.platform}${input.sequence ? ` (sequence "${input.sequence}")` : ''}`,
    `Reason: ${input.reason}`,
    '',
    `Why: ${input.explanation}`,
    '',
    input.platform === 'outreach'
      ? "What happened: the prospect's sequence was paused in Outreach; nothing else was changed."
      : 'What happened: the person was removed from the cadence in Salesloft; nothing else was changed.',
    'If you know this address is good, ask an admin to add it to the Safety Net allowlist.',
  ].join('\n');
}

export interface LookaheadSummary {
  scheduled: number;
  protected: number;
  validated: number;
  prevented: number;
}

async function checkOne(
  message: SafetyNetMessage,
  adapter: PlatformAdapter,
  email: ScheduledEmail,
  summary: LookaheadSummary,
  { clock, log }: Deps,
): Promise<void> {
  const { companyId, platform } = message;
  if (await readPrevention(companyId, platform, email.id)) return;
  if (await isAllowed(companyId, email.recipient)) return;
  const verdict = await recipientVerdict(companyId, email.recipient, clock);
  if (verdict.validated) summary.validated++;
  if (!riskyStatuses.has(verdict.status)) return;
  const outcome = await adapter.stop(email);
  if (outcome === 'gone') return;
  const createdAt = clock().toISOString();
  const explanation = explanationOf(verdict);
  const id = randomUUID();
  const written = await putPreventionIfNew(companyId, {
    id,
    platform,
    emailId: email.id,
    createdAt,
    mailbox: email.mailbox.toLowerCase(),
    prospectEmail: email.recipient,
    status: verdict.status,
    reason: verdict.reason,
    explanation,
    sequence: email.sequence,
    scheduledAt: email.scheduledAt,
  });
  if (!written) return;
  summary.prevented++;
  const owner = (await adapter.ownerEmail(email).catch(() => null)) ?? email.mailbox;
  await sendEmail({
    // one email per prevention, however often this is retried
    id,
    companyId,
    kind: 'safety_net_prevention',
    to: owner,
    subject: `Safety Net: Email Prevented (${email.recipient})`,
    text: preventionEmailText({
      mailbox: email.mailbox,
      prospect: email.recipient,
      date: createdAt,
      reason: verdict.reason,
      explanation,
      platform,
      sequence: email.sequence?.name || null,
    }),
  });
  log.info('safety net prevented an email', { companyId, platform, status: verdict.status });
}

export async function runLookahead(message: SafetyNetMessage, deps: Deps): Promise<WorkOutcome> {
  const { companyId, platform } = message;
  const { clock, log } = deps;
  const connection = await readConnection(companyId, platform);
  if (!connection) return { kind: 'gone' };
  // a grant in error stops nothing silently: it shows as grant_error until the admin reconnects
  if (connection.status === 'grant_error') return { kind: 'done' };
  return withConnectionState(message, deps, async () => {
    const adapter = deps.adapter?.(message) ?? adapterFor(message, clock, log);
    const [emails, protection] = await Promise.all([
      adapter.scheduledEmails(),
      protectionOf(companyId, platform),
    ]);
    const summary: LookaheadSummary = { scheduled: emails.length, protected: 0, validated: 0, prevented: 0 };
    const guarded = emails.filter((email) => isProtected(email, protection));
    summary.protected = guarded.length;
    await eachLimited(guarded, 4, (email) => checkOne(message, adapter, email, summary, deps));
    log.info('safety net look-ahead done', { companyId, platform, ...summary });
    return { kind: 'done' };
  });
}
