// Conversions between stored workspace items (read parsed by functions/store/workspace.ts) and the rows
// the lists and views hold.
import type { UserItem } from '../../store/entities/accounts';
import type {
  ConnectedMailboxItem,
  SafetyNetMailboxItem,
  SafetyNetSequenceItem,
} from '../../store/entities/workspace';
import type { MailboxRow, Person, SafetyNetMailboxRow, SequenceRow, UserRow } from './model';

const personOf = ({ email, firstName, lastName }: Person): Person => ({ email, firstName, lastName });

export function mailboxRowOf(item: ConnectedMailboxItem): MailboxRow {
  return {
    id: item.id,
    email: item.email,
    domain: item.domain,
    provider: item.provider,
    connectionStatus: item.connectionStatus,
    connectedAt: item.connectedAt,
    statusUpdatedAt: item.statusUpdatedAt,
    owner: personOf(item.owner),
  };
}

/** A user item as a row, whichever module wrote it. */
export function userRowOf(item: UserItem, mailboxes: UserRow['mailboxes']): UserRow {
  const active = item.status === 'active';
  return {
    email: item.email.toLowerCase(),
    id: active ? (item.userId ?? null) : null,
    name: item.name,
    role: item.role,
    status: item.status,
    createdAt: active ? (item.createdAt ?? null) : null,
    inviteExpiresAt: active ? null : (item.inviteExpiresAt ?? null),
    mailboxes,
  };
}

export function safetyNetMailboxRowOf(item: SafetyNetMailboxItem): SafetyNetMailboxRow {
  return {
    id: item.id,
    email: item.email,
    activated: item.activated,
    integrations: item.integrations.map(({ service, externalId }) => ({ service, externalId })),
  };
}

export function sequenceRowOf(item: SafetyNetSequenceItem): SequenceRow {
  return {
    id: item.id,
    name: item.name,
    crmSequenceId: item.crmSequenceId,
    service: item.service,
    activated: item.activated,
    owner: personOf(item.owner),
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
