// An admin's own API keys, from the console: list, create (the raw key shown once), revoke. Operators
// keep `npm run keys` for any user's keys; publishable keys stay theirs too.
import { z } from 'zod';
import { ForbiddenError, NotFoundError, ValidationError } from '../../errors';
import { readAccountUser } from '../../store/accounts';
import { systemClock, type Clock } from '../../clock';
import {
  createApiKey,
  listApiKeys,
  revokeApiKey,
  type AccountUser,
  type ApiKeyRecord,
  type Principal,
} from '../accounts/accounts';

export const adminOnlyMessage = 'Only an admin can manage API keys';
export const keyNameMessage = 'name is required: 1 to 100 characters';

export const apiKeyBodySchema = z.object({
  createdAt: z.string().describe('ISO 8601 timestamp (UTC)'),
  hint: z.string().describe('The first characters of the key'),
  id: z.string(),
  name: z.string(),
  revokedAt: z.string().optional().describe('Set once the key is revoked'),
});
export const apiKeyListSchema = z.object({ apiKeys: z.array(apiKeyBodySchema) });
export const createdApiKeySchema = apiKeyBodySchema.extend({
  key: z.string().describe('The key itself: shown this once, never stored'),
});
export const createApiKeyBodySchema = z.object({ name: z.string().trim().min(1).max(100) });

export function parseCreateApiKeyBody(body: unknown): z.infer<typeof createApiKeyBodySchema> {
  const parsed = createApiKeyBodySchema.safeParse(body ?? {});
  if (!parsed.success) throw new ValidationError(keyNameMessage);
  return parsed.data;
}

type ApiKeyBody = z.infer<typeof apiKeyBodySchema>;

function bodyOf(record: ApiKeyRecord): ApiKeyBody {
  return {
    createdAt: record.createdAt,
    hint: record.hint,
    id: record.keyId,
    name: record.name,
    ...(record.revokedAt ? { revokedAt: record.revokedAt } : {}),
  };
}

/** The caller's user, who must be an admin (read fresh: a role taken away applies at once). */
async function requireAdmin(
  principal: Principal,
  read: typeof readAccountUser = readAccountUser,
): Promise<AccountUser> {
  const user = await read(principal.companyId, principal.userEmail);
  if (!user || user.role !== 'admin' || !user.userId) throw new ForbiddenError(adminOnlyMessage);
  return user;
}

const ownSecretKeys = (records: ApiKeyRecord[], userId: string) =>
  records.filter((record) => record.userId === userId && !record.origin);

export async function listOwnApiKeys(principal: Principal): Promise<z.infer<typeof apiKeyListSchema>> {
  const user = await requireAdmin(principal);
  return { apiKeys: ownSecretKeys(await listApiKeys(principal.companyId), user.userId).map(bodyOf) };
}

export async function createOwnApiKey(
  principal: Principal,
  input: z.infer<typeof createApiKeyBodySchema>,
  clock: Clock = systemClock,
): Promise<z.infer<typeof createdApiKeySchema>> {
  const user = await requireAdmin(principal);
  const { rawKey, record } = await createApiKey(
    { companyId: user.companyId, userId: user.userId, userEmail: user.email, name: input.name },
    clock,
  );
  return { ...bodyOf(record), key: rawKey };
}

export async function revokeOwnApiKey(
  principal: Principal,
  keyId: string,
  clock: Clock = systemClock,
): Promise<ApiKeyBody> {
  const user = await requireAdmin(principal);
  const own = ownSecretKeys(await listApiKeys(principal.companyId), user.userId);
  if (!own.some((record) => record.keyId === keyId)) throw new NotFoundError('API key not found');
  return bodyOf(await revokeApiKey(principal.companyId, keyId, clock));
}
