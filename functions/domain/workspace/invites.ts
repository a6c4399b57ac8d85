// Inviting a user (POST /v1/users) and delivering the invite email through an outbox.
// Primary course (the caller holds the invite permission, Permitted<'inviteUsers'>): read the users view; refuse an active user's email
// (409); refresh a pending invite (no new seat) or consume a free seat (409 when none); write the
// invite, its outbox record and the view in one transaction conditioned on the view's version, so two
// concurrent invites can never both take the last seat; then queue the outbox record for send-invite.
// The outbox record is the notification email of every kind (functions/domain/mail/send-email.ts): it
// carries the invite's subject and text, and the same consumer delivers it.
import { randomUUID } from 'node:crypto';
import { ConflictError } from '../../errors';
import type { Logger } from '../../log';
import { outboxPut, type InviteFields } from '../../store/invite-outbox';
import type { OutboxMessage } from '../mail/send-email';
import { sendMessage } from '../../store/queues';
import { invitedUserWrite } from '../../store/workspace';
import { getCompany, type Permitted } from '../accounts/accounts';
import { inviteLifetimeMs, isLiveUser, userBody, userView, type UserRole, type UserRow } from './model';
import { commitWithRetry } from './transact';
import { loadUsers, mailboxesOfOwner } from './users';
import { allRows, upsertRow, viewTransactItems } from './views';

export interface InviteInput {
  email: string;
  name?: string;
  role: UserRole;
}

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
    const invite: InviteFields = {
      name: row.name,
      role: row.role,
      invitedBy: principal.userEmail,
      inviteExpiresAt,
    };
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
        }),
        outboxPut(
          {
            outboxId,
            companyId,
            kind: 'invite',
            to: email,
            ...invite,
            ...inviteEmailContent(invite),
            createdAt: now.toISOString(),
          },
          now,
        ),
        ...viewTransactItems(companyId, userView, change),
      ],
    };
  });
  const message: OutboxMessage = { companyId, outboxId };
  try {
    await sendMessage('invites', message);
  } catch (error) {
    // The outbox record stays `pending`: the invite exists and holds its seat; a retry of the same
    // invite (a refresh) queues a new email. No relay re-drives pending records yet.
    log.error('invite email not queued', error, { outboxId });
  }
  return outcome;
}

/** The invite email's subject and text (plain text: nothing in it is HTML-escaped or rendered). */
export function inviteEmailContent(record: InviteFields): { subject: string; text: string } {
  const who = record.name ? `Hello ${record.name},` : 'Hello,';
  return {
    subject: 'You are invited to a mailvet workspace',
    text: [
      who,
      '',
      `${record.invitedBy} invited you to their mailvet workspace as ${record.role === 'admin' ? 'an admin' : 'a member'}.`,
      `The invite is open until ${record.inviteExpiresAt.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC')}.`,
      '',
      'If you did not expect this email, you can ignore it.',
      '',
    ].join('\n'),
  };
}
