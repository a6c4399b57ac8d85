// Companies, the users who create API keys, and the keys themselves. The company of every request
// comes from its key (authenticate), never from the request.
import { randomUUID } from 'node:crypto';
import { ForbiddenError, InvalidKeyError, MissingKeyError, NotFoundError } from '../../errors';
import {
  findApiKeyHash,
  markApiKeyRevoked,
  putNewApiKey,
  putActiveUser,
  putNewCompany,
  readAccountUser,
  readApiKey,
  readApiKeys,
  readCompany,
  type AccountUser,
  type ApiKeyRecord,
  type Company,
  type Permission,
} from '../../store/accounts';
import { systemClock, type Clock } from '../../clock';
import { generateApiKey, generateWebhookSecret, hashApiKey } from './secrets';

export type { AccountUser, ApiKeyRecord, Company, Permission };

/** Who is calling: derived from a valid API key or a person's token (functions/domain/people/). */
export interface Principal {
  companyId: string;
  userId: string;
  userEmail: string;
  /** The API key's id; empty for a person's token. */
  keyId: string;
  /** Set for a person's token: the user pool's `sub`. */
  personId?: string;
  /** Set for a publishable key: the only origin it may be used from (functions/domain/accounts/publishable.ts). */
  publishableOrigin?: string;
}

export async function createCompany(
  input: {
    companyId?: string;
    name: string;
    seats: number;
    webhookSecret?: string;
  },
  clock: Clock = systemClock,
): Promise<Company> {
  const company: Company = {
    companyId: input.companyId ?? randomUUID(),
    name: input.name,
    seats: input.seats,
    webhookSecret: input.webhookSecret ?? generateWebhookSecret(),
    createdAt: clock().toISOString(),
  };
  await putNewCompany(company);
  return company;
}

export async function getCompany(companyId: string): Promise<Company> {
  const company = await readCompany(companyId);
  if (!company) throw new NotFoundError('Company not found');
  return company;
}

/** The stored record of a new key of either kind: only the hint of the raw key is kept. */
export function newKeyRecord(
  owner: { companyId: string; userId: string; userEmail: string; name: string },
  rawKey: string,
  clock: Clock = systemClock,
): ApiKeyRecord {
  return {
    keyId: randomUUID(),
    companyId: owner.companyId,
    userId: owner.userId,
    userEmail: owner.userEmail,
    name: owner.name,
    hint: rawKey.slice(0, 12),
    createdAt: clock().toISOString(),
  };
}

/**
 * Creates an API key for a user. `rawKey` is for the demo keys only (fixed, documented strings);
 * otherwise a fresh random key is generated. The raw key is returned once and never stored.
 */
export async function createApiKey(
  input: { companyId: string; userId: string; userEmail: string; name: string; rawKey?: string },
  clock: Clock = systemClock,
): Promise<{ rawKey: string; record: ApiKeyRecord }> {
  const rawKey = input.rawKey ?? generateApiKey();
  const record = newKeyRecord(input, rawKey, clock);
  await putNewApiKey(hashApiKey(rawKey), record);
  return { rawKey, record };
}

export function listApiKeys(companyId: string): Promise<ApiKeyRecord[]> {
  return readApiKeys(companyId);
}

/** Revokes the key with this id in the company; later requests with it get 403. */
export async function revokeApiKey(
  companyId: string,
  keyId: string,
  clock: Clock = systemClock,
): Promise<ApiKeyRecord> {
  const found = (await readApiKeys(companyId)).find((k) => k.keyId === keyId);
  const hashed = found && (await findApiKeyHash(companyId, keyId));
  if (!found || hashed === undefined) throw new NotFoundError('API key not found');
  const revokedAt = clock().toISOString();
  await markApiKeyRevoked(hashed, revokedAt);
  return { ...found, revokedAt: found.revokedAt ?? revokedAt };
}

/** Recent authentication results per key hash (a revoked or unknown key is remembered too). */
const authCache = new Map<string, { principal: Principal | undefined; until: number }>();
const authCacheLimit = 10_000;

/**
 * Resolves the caller from the `x-api-key` value: 401 when absent, 403 when unknown or revoked.
 * `cacheSeconds` > 0 keeps the answer that long in this process, saving a read per request.
 */
export async function authenticate(
  rawKey: string | undefined,
  cacheSeconds = 0,
  clock: Clock = systemClock,
): Promise<Principal> {
  if (rawKey === undefined || rawKey.trim() === '') throw new MissingKeyError();
  const keyHash = hashApiKey(rawKey);
  const now = clock().getTime();
  const cached = cacheSeconds > 0 ? authCache.get(keyHash) : undefined;
  if (cached && cached.until > now) {
    if (!cached.principal) throw new InvalidKeyError();
    return cached.principal;
  }
  const principal = await readPrincipal(keyHash);
  if (cacheSeconds > 0) {
    if (authCache.size >= authCacheLimit) authCache.clear();
    authCache.set(keyHash, { principal, until: now + cacheSeconds * 1000 });
  }
  if (!principal) throw new InvalidKeyError();
  return principal;
}

async function readPrincipal(keyHash: string): Promise<Principal | undefined> {
  const record = await readApiKey(keyHash);
  if (!record || record.revokedAt) return undefined;
  return {
    companyId: record.companyId,
    userId: record.userId,
    userEmail: record.userEmail,
    keyId: record.keyId,
    ...(record.origin ? { publishableOrigin: record.origin } : {}),
  };
}

/** The 403 text of a write whose key's creator lacks the permission. */
export const permissionMissingMessage = (permission: Permission) =>
  `The API key's creator lacks the ${permission} permission`;

/** A principal whose key's creator was seen to hold permission P (one read per request). */
export type Permitted<P extends Permission> = Principal & { readonly permission: P };

/**
 * Reads the key's creator once (fresh, so taking a permission away applies at once); 403 without the
 * permission. Use cases needing P take Permitted<P>, so they cannot check, or read, a second time.
 */
export async function requirePermission<P extends Permission>(
  principal: Principal,
  permission: P,
  readUser: (companyId: string, email: string) => Promise<AccountUser | undefined> = readAccountUser,
): Promise<Permitted<P>> {
  const user = await readUser(principal.companyId, principal.userEmail);
  if (!user || user.permissions?.[permission] !== true) {
    throw new ForbiddenError(permissionMissingMessage(permission));
  }
  return { ...principal, permission };
}

/** An active user item in the workspace's user format (the workspace reads the same item). */
export async function putAccountUser(user: AccountUser, clock: Clock = systemClock): Promise<void> {
  await putActiveUser(user, clock().toISOString());
}
