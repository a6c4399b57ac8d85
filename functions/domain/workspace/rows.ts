// Conversions between stored workspace items (functions/store/workspace.ts) and the rows the lists
// and views hold.
import type { Item } from '../../store/workspace';
import type { MailboxRow, SafetyNetMailboxRow, SequenceRow, UserRow } from './model';

export function mailboxRowOf(item: Item): MailboxRow {
  const owner = item.owner as MailboxRow['owner'];
  return {
    id: String(item.id),
    email: String(item.email),
    domain: String(item.domain),
    provider: String(item.provider),
    connectionStatus: item.connectionStatus as MailboxRow['connectionStatus'],
    connectedAt: String(item.connectedAt),
    statusUpdatedAt: String(item.statusUpdatedAt),
    owner: { email: owner.email, firstName: owner.firstName, lastName: owner.lastName },
  };
}

/** A user item as a row; accounts-module items carry `userId`, workspace ones too. */
export function userRowOf(item: Item, mailboxes: UserRow['mailboxes']): UserRow {
  const active = item.status !== 'invited';
  return {
    email: String(item.email).toLowerCase(),
    id: active ? String(item.userId ?? item.id) : null,
    name: String(item.name ?? ''),
    role: item.role === 'admin' ? 'admin' : 'member',
    status: active ? 'active' : 'invited',
    createdAt: active ? String(item.createdAt) : null,
    inviteExpiresAt: active ? null : String(item.inviteExpiresAt),
    mailboxes,
  };
}

export function safetyNetMailboxRowOf(item: Item): SafetyNetMailboxRow {
  return {
    id: String(item.id),
    email: String(item.email),
    activated: item.activated === true,
    integrations: (item.integrations as SafetyNetMailboxRow['integrations']).map((i) => ({
      service: i.service,
      externalId: i.externalId ?? null,
    })),
  };
}

export function sequenceRowOf(item: Item): SequenceRow {
  const owner = item.owner as SequenceRow['owner'];
  return {
    id: String(item.id),
    name: String(item.name),
    crmSequenceId: String(item.crmSequenceId),
    service: item.service as SequenceRow['service'],
    activated: item.activated === true,
    owner: { email: owner.email, firstName: owner.firstName, lastName: owner.lastName },
  };
}

/** Each user's connected mailboxes, by lower-cased owner email, sorted by mailbox email. */
export function mailboxesByOwner(mailboxes: MailboxRow[]): Map<string, UserRow['mailboxes']> {
  const out = new Map<string, UserRow['mailboxes']>();
  for (const m of [...mailboxes].sort((a, b) => (a.email < b.email ? -1 : a.email > b.email ? 1 : 0))) {
    const owner = m.owner.email.toLowerCase();
    const list = out.get(owner) ?? [];
    list.push({ email: m.email, id: m.id });
    out.set(owner, list);
  }
  return out;
}
