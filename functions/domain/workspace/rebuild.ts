// Rows of each list built from the items, for a view's first build (loadView) when no import wrote it,
// e.g. users the accounts module created before any workspace write.
import type { DomainRow, MailboxRow, SafetyNetMailboxRow, SequenceRow, UserRow } from './model';
import {
  readConnectedDomains,
  readConnectedMailboxes,
  readSafetyNetMailboxes,
  readSafetyNetSequences,
  readUsers,
} from '../../store/workspace';
import { mailboxesByOwner, mailboxRowOf, safetyNetMailboxRowOf, sequenceRowOf, userRowOf } from './rows';

export async function rebuildMailboxRows(companyId: string): Promise<MailboxRow[]> {
  return (await readConnectedMailboxes(companyId)).map(mailboxRowOf);
}

export async function rebuildDomainRows(companyId: string): Promise<DomainRow[]> {
  return (await readConnectedDomains(companyId)).map(({ domain, mailboxCount, currentReputation }) => ({
    domain,
    mailboxCount,
    currentReputation,
  }));
}

export async function rebuildUserRows(companyId: string): Promise<UserRow[]> {
  const [users, mailboxes] = await Promise.all([readUsers(companyId), rebuildMailboxRows(companyId)]);
  const owners = mailboxesByOwner(mailboxes);
  return users.map((item) => userRowOf(item, owners.get(item.email.toLowerCase()) ?? []));
}

export async function rebuildSafetyNetMailboxRows(companyId: string): Promise<SafetyNetMailboxRow[]> {
  return (await readSafetyNetMailboxes(companyId)).map(safetyNetMailboxRowOf);
}

export async function rebuildSequenceRows(companyId: string): Promise<SequenceRow[]> {
  return (await readSafetyNetSequences(companyId)).map(sequenceRowOf);
}
