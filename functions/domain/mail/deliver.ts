// Delivering one outbox email (the invites queue's consumer, sendInvite), whatever its kind: read the
// record, hand its subject and text to the configured transport, mark it sent. A record already sent is
// skipped (SQS may deliver a message twice). With no transport (no INVITE_FROM in AWS) the record stays
// `pending` and the message is acknowledged: sending needs a deploy with `inviteFrom`, not a retry.
// The log lines name the outbox record and its kind, never an address, a subject or a text.
import type { Logger } from '../../log';
import { configuredTransport, type MailTransport } from '../../store/invite-mail';
import { dynamoOutbox, type InviteOutbox, type OutboxRecord } from '../../store/invite-outbox';
import { inviteEmailContent } from '../workspace/invites';
import type { OutboxMessage } from './send-email';

/** What is sent: the record's own subject and text, or (an invite written before it kept them) the invite's. */
function contentOf(record: OutboxRecord): { subject: string; text: string } | undefined {
  if (record.subject !== undefined && record.text !== undefined)
    return { subject: record.subject, text: record.text };
  const { name, role, invitedBy, inviteExpiresAt } = record;
  if (record.kind === 'invite' && name !== undefined && role && invitedBy && inviteExpiresAt)
    return inviteEmailContent({ name, role, invitedBy, inviteExpiresAt });
  return undefined;
}

export async function deliverOutboxEmail(
  message: OutboxMessage,
  now: Date,
  log: Logger,
  outbox: InviteOutbox = dynamoOutbox,
  transport: MailTransport | null = configuredTransport(),
): Promise<'sent' | 'already-sent' | 'missing' | 'not-configured'> {
  const record = await outbox.read(message.companyId, message.outboxId);
  if (!record) return 'missing';
  if (record.status === 'sent') return 'already-sent';
  const content = contentOf(record);
  if (!content) {
    log.error('outbox email has nothing to send; dropped', undefined, {
      outboxId: message.outboxId,
      kind: record.kind,
    });
    return 'missing';
  }
  if (!transport) {
    log.warn(`${record.kind} email not sent: no mail transport configured (inviteFrom); it stays pending`, {
      outboxId: message.outboxId,
      kind: record.kind,
    });
    return 'not-configured';
  }
  await transport.send({ id: record.outboxId, kind: record.kind, to: record.to, ...content });
  log.info(`${record.kind} email sent`, {
    outboxId: message.outboxId,
    kind: record.kind,
    transport: transport.kind,
    ...(record.role ? { role: record.role } : {}),
  });
  // Another delivery of the same message may have marked it first: the email then went out twice
  // at most, never zero times.
  return (await outbox.markSent(message.companyId, message.outboxId, now)) ? 'sent' : 'already-sent';
}
