// What the Safety Net did and may not do: GET /v1/safety-net/preventions (newest first, paged) and
// the allowlist (admin), compared without regard to case (docs/safety-net.md).
import { z } from 'zod';
import type { Clock } from '../../clock';
import { ValidationError } from '../../errors';
import { safetyNetPlatforms } from '../../store/entities/safety-net';
import { deleteAllowed, putAllowed, readAllowed, readPreventions } from '../../store/safety-net';
import type { Principal } from '../accounts/accounts';
import { listQuery } from '../workspace/query';
import { requireAdmin } from './admin';

export const listPreventionsQuery = listQuery({});
export type ListPreventionsQuery = z.infer<typeof listPreventionsQuery>;

const preventionSchema = z.object({
  createdAt: z.string().describe('When the email was stopped (ISO 8601, UTC)'),
  explanation: z.string(),
  id: z.string(),
  mailbox: z.string().describe('The sending mailbox'),
  platform: z.enum(safetyNetPlatforms),
  prospectEmail: z.string(),
  reason: z.string().describe("The verdict's reason"),
  sequence: z.object({ crmSequenceId: z.string(), name: z.string() }).nullable(),
  status: z.string().describe("The verdict's status"),
});
export const preventionListSchema = z.object({
  limit: z.number().int(),
  offset: z.number().int(),
  preventions: z.array(preventionSchema),
  total: z.number().int().nonnegative(),
});

export async function listPreventions(
  companyId: string,
  query: ListPreventionsQuery,
): Promise<z.infer<typeof preventionListSchema>> {
  const all = await readPreventions(companyId);
  return {
    limit: query.limit,
    offset: query.offset,
    total: all.length,
    preventions: all.slice(query.offset, query.offset + query.limit).map((p) => ({
      createdAt: p.createdAt,
      explanation: p.explanation,
      id: p.id,
      mailbox: p.mailbox,
      platform: p.platform,
      prospectEmail: p.prospectEmail,
      reason: p.reason,
      sequence: p.sequence,
      status: p.status,
    })),
  };
}

export const allowlistSchema = z.object({ emails: z.array(z.string()) });
export const invalidAllowEmailMessage = 'email must be an email address';
const allowEmail = z
  .string()
  .trim()
  .max(254)
  .regex(/^[^\s@]+@[^\s@]+$/, invalidAllowEmailMessage);

export function parseAllowEmail(raw: string | undefined): string {
  const parsed = allowEmail.safeParse(raw ?? '');
  if (!parsed.success) throw new ValidationError(invalidAllowEmailMessage);
  return parsed.data.toLowerCase();
}

export async function listAllowed(principal: Principal): Promise<z.infer<typeof allowlistSchema>> {
  const { companyId } = await requireAdmin(principal);
  return { emails: await readAllowed(companyId) };
}

export async function allow(principal: Principal, email: string, clock: Clock): Promise<void> {
  const { companyId } = await requireAdmin(principal);
  await putAllowed(companyId, email, clock().toISOString());
}

export async function disallow(principal: Principal, email: string): Promise<void> {
  const { companyId } = await requireAdmin(principal);
  await deleteAllowed(companyId, email);
}
