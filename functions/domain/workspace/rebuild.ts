// Rows of each list built from the items, for a view's first build (loadView) when no import wrote it,
// e.g. users the accounts module created before any workspace write.
import {
  connectedDomainPrefix,
  connectedMailboxPrefix,
  safetyNetMailboxPrefix,
  safetyNetSequencePrefix,
  userPrefix,
} from '../../store/keys';
import type { DomainRow, MailboxRow, SafetyNetMailboxRow, SequenceRow, UserRow } from './model';
import { queryPrefix } from '../../store/workspace';
import { mailboxesByOwner, mailboxRowOf, safetyNetMailboxRowOf, sequenceRowOf, userRowOf } from './rows';

export async function rebuildMailboxRows(companyId: string): Promise<MailboxRow[]> {
  return (await queryPrefix(companyId, connectedMailboxPrefix)).map(mailboxRowOf);
}

export async function rebuildDomainRows(companyId: string): Promise<DomainRow[]> {
  return (await queryPrefix(companyId, connectedDomainPrefix)).map((item) => ({
    domain: String(item.domain),
    mailboxCount: Number(item.mailboxCount),
    currentReputation: (item.currentReputation as number | null | undefined) ?? null,
  }));
}

export async function rebuildUserRows(companyId: string): Promise<UserRow[]> {
  const [users, mailboxes] = await Promise.all([
    queryPrefix(companyId, userPrefix),
    rebuildMailboxRows(companyId),
  ]);
  const owners = mailboxesByOwner(mailboxes);
  return users.map((item) => userRowOf(item, owners.get(String(item.email).toLowerCase()) ?? []));
}

export async function rebuildSafetyNetMailboxRows(companyId: string): Promise<SafetyNetMailboxRow[]> {
  return (await queryPrefix(companyId, safetyNetMailboxPrefix)).map(safetyNetMailboxRowOf);
}

export async function rebuildSequenceRows(companyId: string): Promise<SequenceRow[]> {
  return (await queryPrefix(companyId, safetyNetSequencePrefix())).map(sequenceRowOf);
}
