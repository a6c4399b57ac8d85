// Inviting a user (POST /v1/users) and delivering the invite email through an outbox.
// Primary course (the caller holds the invite permission, Permitted<'inviteUsers'>): read the users view; refuse an active user's email
// (409); refresh a pending invite (no new seat) or consume a free seat (409 when none); write the
// invite, its outbox record and the view in one transaction conditioned on the view's version, so two
// concurrent invites can never both take the last seat; then queue the outbox record for send-invite.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { ConflictError } from '../../errors';
import type { Logger } from '../../log';
import { configuredTransport, type MailTransport } from '../../store/invite-mail';
import { dynamoOutbox, outboxPut, type InviteOutbox, type OutboxRecord } from '../../store/invite-outbox';
import { sendMessage } from '../../store/queues';
import { invitedUserWrite } from '../../store/workspace';
import { settings } from '../../settings';
import { getCompany, type Permitted } from '../accounts/accounts';
import { acceptInviteUrl, newInviteLink } from '../people/links';
import { inviteLifetimeMs, isLiveUser, userBody, userView, type UserRole, type UserRow } from './model';
import { commitWithRetry } from './transact';
import { loadUsers, mailboxesOfOwner } from './users';
import { allRows, upsertRow, viewTransactItems } from './views';

export interface InviteInput {
  email: string;
  name?: string;
  role: UserRole;
}

/**
 * The invites queue message: the outbox record to deliver and the one-time token of the invite's link.
 * The token travels only here and in the email; items hold its SHA-256 (functions/domain/people/).
 */
export const inviteMessageSchema = z.object({
  companyId: z.string().min(1),
  outboxId: z.string().min(1),
  token: z.string().min(1).optional(),
});
export type InviteMessage = z.infer<typeof inviteMessageSchema>;

/** The 409 texts of an invite. */
export const inviteConflictMessages = {
  active: 'A user with this email is already active',
  noSeat: 'No free seats',
};

/**
 * The seat rule of an invite to `email` (lower-cased) given the users list: an active user's email is
 * refused; a live invite is refreshed and keeps its seat; otherwise a free seat is needed (live users
 * and unexpired invites hold one each; an expired invite holds none).
 */
export function seatFor(
  rows: UserRow[],
  email: string,
  seats: number,
  now: Date,
): { existing: UserRow | undefined; refresh: boolean } {
  const existing = rows.find((row) => row.email === email);
  if (existing?.status === 'active') throw new ConflictError(inviteConflictMessages.active);
  const refresh = existing !== undefined && isLiveUser(existing, now);
  if (!refresh && rows.filter((row) => isLiveUser(row, now)).length >= seats) {
    throw new ConflictError(inviteConflictMessages.noSeat);
  }
  return { existing, refresh };
}

export async function inviteUser(
  principal: Permitted<'inviteUsers'>,
  input: InviteInput,
  now: Date,
  log: Logger,
) {
  const { companyId } = principal;
  const email = input.email.toLowerCase();
  const company = await getCompany(companyId);
  const outboxId = randomUUID();
  // A fresh link every time: a refreshed invite's new hash replaces the old one, whose link then dies.
  const link = newInviteLink();
  const outcome = await commitWithRetry(companyId, now, async () => {
    const view = await loadUsers(companyId);
    const { existing, refresh } = seatFor(allRows(view), email, company.seats, now);
    const inviteExpiresAt = new Date(now.getTime() + inviteLifetimeMs).toISOString();
    const row: UserRow = {
      email,
      id: null,
      name: input.name ?? existing?.name ?? '',
      role: input.role,
      status: 'invited',
      createdAt: null,
      inviteExpiresAt,
      mailboxes: existing?.mailboxes ?? (await mailboxesOfOwner(companyId, email)),
    };
    const change = upsertRow(userView, view, row);
    return {
      result: { created: !refresh, user: userBody(row) },
      items: [
        invitedUserWrite({
          companyId,
          email,
          name: row.name,
          role: row.role,
          inviteExpiresAt,
          invitedAt: now.toISOString(),
          invitedBy: principal.userEmail,
          inviteTokenHash: link.tokenHash,
        }),
        outboxPut(
          {
            outboxId,
            companyId,
            to: email,
            name: row.name,
            role: row.role,
            invitedBy: principal.userEmail,
            inviteExpiresAt,
            createdAt: now.toISOString(),
          },
          now,
        ),
        ...viewTransactItems(companyId, userView, change),
      ],
    };
  });
  const message: InviteMessage = { companyId, outboxId, token: link.token };
  try {
    await sendMessage('invites', message);
  } catch (error) {
    // The outbox record stays `pending`: the invite exists and holds its seat; a retry of the same
    // invite (a refresh) queues a new email. No relay re-drives pending records yet.
    log.error('invite email not queued', error, { outboxId });
  }
  return outcome;
}

/**
 * The invite email's subject and text (plain text: nothing in it is HTML-escaped or rendered), with
 * the one link to the console's accept page when the message carries the invite's token.
 */
export function inviteEmailContent(
  record: OutboxRecord,
  token?: string,
  consoleUrl = settings().CONSOLE_URL,
): { subject: string; text: string } {
  const who = record.name ? `Hello ${record.name},` : 'Hello,';
  const accept =
    token && consoleUrl
      ? [
          '',
          'To accept, choose your password on this page (the link works once):',
          acceptInviteUrl(consoleUrl, token),
        ]
      : [];
  return {
    subject: 'You are invited to a mailvet workspace',
    text: [
      who,
      '',
      `${record.invitedBy} invited you to their mailvet workspace as ${record.role === 'admin' ? 'an admin' : 'a member'}.`,
      `The invite is open until ${record.inviteExpiresAt.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC')}.`,
      ...accept,
      '',
      'If you did not expect this email, you can ignore it.',
      '',
    ].join('\n'),
  };
}

/**
 * Delivers one outbox record through the configured transport and marks it sent. With no transport
 * (no INVITE_FROM in AWS) the record stays `pending` and the message is acknowledged: sending needs a
 * deploy with `inviteFrom`, not a retry. The log lines name the outbox record, never an address.
 */
export async function sendInviteEmail(
  message: InviteMessage,
  now: Date,
  log: Logger,
  outbox: InviteOutbox = dynamoOutbox,
  transport: MailTransport | null = configuredTransport(),
): Promise<'sent' | 'already-sent' | 'missing' | 'not-configured'> {
  const record = await outbox.read(message.companyId, message.outboxId);
  if (!record) return 'missing';
  if (record.status === 'sent') return 'already-sent';
  if (!transport) {
    log.warn('invite email not sent: no mail transport configured (inviteFrom); it stays pending', {
      outboxId: message.outboxId,
    });
    return 'not-configured';
  }
  await transport.send({ id: record.outboxId, to: record.to, ...inviteEmailContent(record, message.token) });
  log.info('invite email sent', { outboxId: message.outboxId, transport: transport.kind, role: record.role });
  // Another delivery of the same message may have marked it first: the email then went out twice
  // at most, never zero times.
  return (await outbox.markSent(message.companyId, message.outboxId, now)) ? 'sent' : 'already-sent';
}
