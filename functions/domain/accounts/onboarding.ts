// Onboarding a company on a fresh deployment (`npm run admin -- company create`): the company, its
// first admin user, its plan and the admin's first API key, which is returned once and never stored.
import { systemClock, type Clock } from '../../clock';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { ValidationError } from '../../errors';
import { settings } from '../../settings';
import { addCredits, setMonthlyQuota } from '../usage';
import { createApiKey, createCompany, putAccountUser, type AccountUser } from './accounts';

const wholeNumber = (min: number) => z.number().int().min(min).max(Number.MAX_SAFE_INTEGER);

const onboardingInput = z.object({
  name: z.string().trim().min(1, 'name must not be empty').max(200),
  adminEmail: z.email('admin email must be an email address'),
  adminName: z.string().trim().min(1).max(200).optional(),
  seats: wholeNumber(1).default(5),
  monthlyQuota: wholeNumber(0).optional(),
  credits: wholeNumber(0).optional(),
});
export type OnboardingInput = z.input<typeof onboardingInput>;
/** The parsed input: defaults applied, every rule checked. */
export type OnboardingRequest = z.output<typeof onboardingInput>;

/** Parses the operator's input at the edge (the admin command); the first broken rule is the 400 text. */
export function parseOnboardingInput(raw: OnboardingInput): OnboardingRequest {
  const parsed = onboardingInput.safeParse(raw);
  if (!parsed.success) throw new ValidationError(parsed.error.issues.map((i) => i.message).join('; '));
  return parsed.data;
}

export interface Onboarded {
  companyId: string;
  name: string;
  adminEmail: string;
  adminUserId: string;
  apiKey: string;
  keyId: string;
}

export async function onboardCompany(
  input: OnboardingRequest,
  clock: Clock = systemClock,
): Promise<Onboarded> {
  const company = await createCompany({ name: input.name, seats: input.seats }, clock);
  const admin: AccountUser = {
    companyId: company.companyId,
    userId: randomUUID(),
    email: input.adminEmail.toLowerCase(),
    name: input.adminName ?? input.adminEmail.split('@')[0]!,
    role: 'admin',
    permissions: { inviteUsers: true, toggleSequences: true },
  };
  await putAccountUser(admin, clock);
  if (input.monthlyQuota !== undefined) await setMonthlyQuota(company.companyId, input.monthlyQuota, clock);
  const credits = input.credits ?? settings().DEFAULT_CREDITS;
  if (credits > 0) await addCredits(company.companyId, credits, clock);
  const { rawKey, record } = await createApiKey(
    {
      companyId: company.companyId,
      userId: admin.userId,
      userEmail: admin.email,
      name: 'first admin key',
    },
    clock,
  );
  return {
    companyId: company.companyId,
    name: company.name,
    adminEmail: admin.email,
    adminUserId: admin.userId,
    apiKey: rawKey,
    keyId: record.keyId,
  };
}
