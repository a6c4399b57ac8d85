// The demo people (README, "Demo people"): each demo key's user can also sign in to the console with
// email and password. Seeded with the local runtime's user pool on first start. Demo data only.
import { systemClock, type Clock } from '../../functions/clock';
import type { AccountUser } from '../../functions/domain/accounts/accounts';
import { putPerson } from '../../functions/store/people';
import { createPerson } from '../../functions/store/people-directory';

/** Fixed, documented passwords: they exist only in a local runtime's seeded data. */
export const demoPasswords: Record<string, string> = {
  'ada.admin@acme.example': 'Ada-demo-Passw0rd!',
  'max.member@acme.example': 'Max-demo-Passw0rd!',
  'gina.admin@globex.example': 'Gina-demo-Passw0rd!',
};

export async function seedDemoPeople(users: AccountUser[], clock: Clock = systemClock): Promise<void> {
  for (const user of users) {
    const password = demoPasswords[user.email];
    if (!password) continue;
    const created = await createPerson(user.email, password);
    if (!('sub' in created)) continue;
    await putPerson({
      sub: created.sub,
      companyId: user.companyId,
      email: user.email,
      userId: user.userId,
      createdAt: clock().toISOString(),
    });
  }
}
