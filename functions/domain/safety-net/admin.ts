// Who may manage the Safety Net's connections and allowlist: an admin of the company.
import { ForbiddenError } from '../../errors';
import { readAccountUser, type AccountUser } from '../../store/accounts';
import type { Principal } from '../accounts/accounts';

export const adminOnlyMessage = 'Only an admin may manage Safety Net connections and the allowlist';

/** The key's creator (or the signed-in person), read fresh; 403 unless an admin. */
export async function requireAdmin(
  principal: Principal,
  readUser: (companyId: string, email: string) => Promise<AccountUser | undefined> = readAccountUser,
): Promise<Principal> {
  const user = await readUser(principal.companyId, principal.userEmail);
  if (!user || user.role !== 'admin') throw new ForbiddenError(adminOnlyMessage);
  return principal;
}
