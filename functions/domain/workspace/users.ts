// Users and pending invites of a company. Expired invites are dropped at read time: they leave the
// list and stop holding a seat the moment they expire, with no sweeper involved.
import { z } from 'zod';
import { NotFoundError } from '../../errors';
import { readMailboxesOfOwner, readUser, userEmailById } from '../../store/workspace';
import {
  compareText,
  isLiveUser,
  pageSchema,
  userBody,
  userBodySchema,
  userStatuses,
  userView,
  type UserRow,
} from './model';
import { enumParam, listQuery } from './query';
import { rebuildUserRows } from './rebuild';
import { userRowOf } from './rows';
import { allRows, loadView, type LoadedView } from './views';

export function loadUsers(companyId: string): Promise<LoadedView<UserRow>> {
  return loadView(companyId, userView, () => rebuildUserRows(companyId));
}

export const listUsersQuery = listQuery({ status: enumParam('status', userStatuses).optional() });
export type ListUsersQuery = z.infer<typeof listUsersQuery>;

export const userListSchema = pageSchema('users', userBodySchema);

export async function listUsers(
  companyId: string,
  query: ListUsersQuery,
  now: Date,
): Promise<z.infer<typeof userListSchema>> {
  const rows = allRows(await loadUsers(companyId)).filter(
    (row) => isLiveUser(row, now) && (query.status === undefined || row.status === query.status),
  );
  return {
    limit: query.limit,
    offset: query.offset,
    total: rows.length,
    users: rows.slice(query.offset, query.offset + query.limit).map(userBody),
  };
}

/** An active user by id (invited users have none). The id index holds the company, so other companies' ids miss. */
export async function getUser(companyId: string, id: string): Promise<z.infer<typeof userBodySchema>> {
  let email = await userEmailById(companyId, id);
  if (email === undefined) {
    // Users written by the accounts module carry no index keys: the users view knows them.
    email = allRows(await loadUsers(companyId)).find(
      (row) => row.id === id && row.status === 'active',
    )?.email;
  }
  if (email === undefined) throw new NotFoundError('User not found');
  const [user, mailboxes] = await Promise.all([
    readUser(companyId, email),
    mailboxesOfOwner(companyId, email),
  ]);
  if (!user || user.status === 'invited') throw new NotFoundError('User not found');
  const row = userRowOf(user, mailboxes);
  if (row.id !== id) throw new NotFoundError('User not found');
  return userBody(row);
}

/** A person's connected mailboxes, sorted by email, from the owner index of the mailbox items. */
export async function mailboxesOfOwner(companyId: string, ownerEmail: string): Promise<UserRow['mailboxes']> {
  return (await readMailboxesOfOwner(companyId, ownerEmail)).sort((a, b) => compareText(a.email, b.email));
}
