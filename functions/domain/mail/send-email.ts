// Notification email of every context (invites, password resets, Safety Net prevention notices).
// Primary course: check the message; write it to the outbox as a pending record (once per id: a second
// call with the same id writes nothing); queue it on the invites queue, whose consumer (sendInvite,
// functions/domain/mail/deliver.ts) hands it to the mail transport: SES in AWS, an .eml file named
// `<kind>-<id>.eml` under DATA_DIR/outbox locally. A caller's function needs table write and
// `sendsTo: ['invites']` in the wiring. Nothing here logs the address, the subject or the text.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { systemClock, type Clock } from '../../clock';
import { ConflictError, ValidationError } from '../../errors';
import { dynamoOutbox, putOutboxRecord, type EmailKind } from '../../store/invite-outbox';
import { sendMessage } from '../../store/queues';

export type { EmailKind };

/** The invites queue message: the outbox record to deliver. */
export const outboxMessageSchema = z.object({ companyId: z.string().min(1), outboxId: z.string().min(1) });
export type OutboxMessage = z.infer<typeof outboxMessageSchema>;

const headerText = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .refine((v) => !/[\r\n]/.test(v), 'must not contain a line break');

const emailMessageSchema = z.object({
  companyId: z.string().min(1),
  kind: z.enum(['invite', 'password_reset', 'safety_net_prevention']),
  to: z.email().max(254),
  // RFC 5322 caps a line at 998 characters; a subject far shorter is kind to every client.
  subject: headerText(400),
  // SES takes 10 MB per message; an outbox item must stay well within DynamoDB's 400 KB.
  text: z.string().max(256 * 1024),
  /** Make the call idempotent: the same id sends at most one email (default: a new one each call). */
  id: z
    .string()
    .regex(/^[A-Za-z0-9-]{1,100}$/, 'must be 1 to 100 letters, digits or dashes')
    .optional(),
});

/** Queues one email through the same transport invites use (SES in AWS, an .eml under DATA_DIR/outbox locally). */
export async function sendEmail(
  message: { companyId: string; kind: EmailKind; to: string; subject: string; text: string; id?: string },
  clock: Clock = systemClock,
): Promise<{ id: string }> {
  const parsed = emailMessageSchema.safeParse(message);
  if (!parsed.success)
    // the field names and rules only: never the values (an address, the text)
    throw new ValidationError(
      `Invalid email: ${parsed.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}`,
    );
  const { id = randomUUID(), companyId, kind, to, subject, text } = parsed.data;
  const now = clock();
  const written = await putOutboxRecord(
    { outboxId: id, companyId, kind, to, subject, text, createdAt: now.toISOString() },
    now,
  );
  if (!written) {
    const existing = await dynamoOutbox.read(companyId, id);
    // An id names one email: reusing it for another kind or address is a caller's bug.
    if (existing && (existing.kind !== kind || existing.to !== to))
      throw new ConflictError(`Outbox email ${id} exists with another kind or recipient`);
    // Sent already: nothing more to do. Pending: queue it again (the earlier queueing may have failed).
    if (existing?.status === 'sent') return { id };
  }
  // A failure here throws: the record is pending, and the caller's retry with the same id queues it.
  await sendMessage('invites', { companyId, outboxId: id } satisfies OutboxMessage);
  return { id };
}
