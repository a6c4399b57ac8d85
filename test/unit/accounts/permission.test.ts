// One permission check per request: the key's creator is read once, and a use case that needs the
// permission takes the Permitted principal this read produced (so it cannot check, or read, again).
import { requirePermission, type AccountUser } from '../../../functions/domain/accounts/accounts';
import { ForbiddenError } from '../../../functions/errors';

const principal = { companyId: 'c1', userId: 'u1', userEmail: 'ada@acme.example', keyId: 'k1' };
const user = (inviteUsers: boolean): AccountUser => ({
  companyId: 'c1',
  userId: 'u1',
  email: 'ada@acme.example',
  name: 'Ada',
  role: inviteUsers ? 'admin' : 'member',
  permissions: { inviteUsers, toggleSequences: false },
});

function countingReader(found: AccountUser | undefined) {
  const reads: string[] = [];
  const read = async (companyId: string, email: string) => {
    reads.push(`${companyId}/${email}`);
    return found;
  };
  return { read, reads };
}

describe('requirePermission', () => {
  it("reads the key's creator once and returns the permitted principal", async () => {
    const { read, reads } = countingReader(user(true));
    const permitted = await requirePermission(principal, 'inviteUsers', read);
    expect(permitted).toEqual({ ...principal, permission: 'inviteUsers' });
    expect(reads).toEqual(['c1/ada@acme.example']);
  });

  it.each([
    ['lacks the permission', user(false)],
    ['is gone', undefined],
  ])('answers 403 with one read when the creator %s', async (_case, found) => {
    const { read, reads } = countingReader(found);
    const refused = requirePermission(principal, 'inviteUsers', read);
    await expect(refused).rejects.toBeInstanceOf(ForbiddenError);
    await expect(refused).rejects.toThrow("The API key's creator lacks the inviteUsers permission");
    expect(reads).toHaveLength(1);
  });

  it('checks the permission asked for, not another one', async () => {
    const { read } = countingReader(user(true));
    await expect(requirePermission(principal, 'toggleSequences', read)).rejects.toBeInstanceOf(
      ForbiddenError,
    );
  });
});
