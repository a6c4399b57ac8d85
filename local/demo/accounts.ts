// The demo companies, users and API keys of docs/api.md, seeded by the local runtime on first start.
// Demo data only: nothing under functions/ imports it (test/unit/layers.test.ts).
import { systemClock, type Clock } from '../../functions/clock';
import {
  createApiKey,
  createCompany,
  putAccountUser,
  type AccountUser,
} from '../../functions/domain/accounts/accounts';
import { addCredits, setMonthlyQuota, usageMonth } from '../../functions/domain/usage';
import { addToMonth } from '../../functions/store/usage';

export const demoIds = {
  acme: '0a0c3e00-0000-4000-8000-000000000001',
  globex: '0b10be00-0000-4000-8000-000000000002',
  acmeAdmin: '0a0c3e00-0000-4000-8000-0000000000a1',
  acmeMember: '0a0c3e00-0000-4000-8000-0000000000a2',
  globexAdmin: '0b10be00-0000-4000-8000-0000000000b1',
} as const;

/** Fixed, documented keys (not random): they exist only in a local runtime's seeded data. */
export const demoKeys = {
  admin: 'demo-admin-key',
  member: 'demo-member-key',
  other: 'demo-other-key',
} as const;

export interface DemoAccounts {
  acmeId: string;
  globexId: string;
  users: AccountUser[];
}

const demoUsers: AccountUser[] = [
  {
    companyId: demoIds.acme,
    userId: demoIds.acmeAdmin,
    email: 'ada.admin@acme.example',
    name: 'Ada Admin',
    role: 'admin',
    permissions: { inviteUsers: true, toggleSequences: true },
  },
  {
    companyId: demoIds.acme,
    userId: demoIds.acmeMember,
    email: 'max.member@acme.example',
    name: 'Max Member',
    role: 'member',
    permissions: { inviteUsers: false, toggleSequences: false },
  },
  {
    companyId: demoIds.globex,
    userId: demoIds.globexAdmin,
    email: 'gina.admin@globex.example',
    name: 'Gina Admin',
    role: 'admin',
    permissions: { inviteUsers: true, toggleSequences: true },
  },
];

/**
 * Demo plans that show every state (docs/usage.md): Acme well within a large quota; Globex with 5 of
 * its 500 validations left this month and 20 credits after them (its last month used 10 credits of 30),
 * so 25 more validations exhaust it and the next answer is 402.
 */
const demoPlans = {
  acme: { monthlyQuota: 1_000_000, credits: 5_000 },
  globex: { monthlyQuota: 500, credits: 30, usedThisMonth: 495, usedLastMonth: 510 },
} as const;

async function seedDemoPlans(clock: Clock): Promise<void> {
  const now = clock();
  const lastMonth = usageMonth(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1)));
  const count = (companyId: string, month: string, single: number, bulk: number) =>
    addToMonth(companyId, month, { single, bulk, validations: single + bulk, committed: single + bulk });
  await setMonthlyQuota(demoIds.acme, demoPlans.acme.monthlyQuota, clock);
  await addCredits(demoIds.acme, demoPlans.acme.credits, clock);
  // The quota first: months counted after it are measured against it.
  await setMonthlyQuota(demoIds.globex, demoPlans.globex.monthlyQuota, clock);
  await count(demoIds.globex, lastMonth, 110, demoPlans.globex.usedLastMonth - 110);
  await count(demoIds.globex, usageMonth(now), 95, demoPlans.globex.usedThisMonth - 95);
  await addCredits(demoIds.globex, demoPlans.globex.credits, clock);
}

export async function seedDemoAccounts(clock: Clock = systemClock): Promise<DemoAccounts> {
  await createCompany({ companyId: demoIds.acme, name: 'Acme', seats: 25 });
  await createCompany({ companyId: demoIds.globex, name: 'Globex', seats: 10 });
  const joined = () => new Date('2026-01-05T09:00:00.000Z');
  for (const user of demoUsers) await putAccountUser(user, joined);
  const [adminUser, memberUser, globexUser] = demoUsers as [AccountUser, AccountUser, AccountUser];
  const keyOf = (user: AccountUser, rawKey: string) =>
    createApiKey({
      companyId: user.companyId,
      userId: user.userId,
      userEmail: user.email,
      name: 'demo',
      rawKey,
    });
  await keyOf(adminUser, demoKeys.admin);
  await keyOf(memberUser, demoKeys.member);
  await keyOf(globexUser, demoKeys.other);
  await seedDemoPlans(clock);
  return { acmeId: demoIds.acme, globexId: demoIds.globex, users: demoUsers };
}
