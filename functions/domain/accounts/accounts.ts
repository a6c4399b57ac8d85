// Companies, the users who create API keys, and the keys themselves. The company of every request
// comes from its key (authenticate), never from the request.
import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoDb, tableName } from '../../clients/dynamodb';
import { ForbiddenError, InvalidKeyError, MissingKeyError, NotFoundError } from '../../errors';
import { apiKeyKey, apiKeysOfCompanyIndex, companyKey, userKey } from '../../store/keys';
import { generateApiKey, generateWebhookSecret, hashApiKey } from './secrets';
import { queryAll } from '../../store/dynamodb';

export interface Company {
  companyId: string;
  name: string;
  /** Seats for users (active and invited). */
  seats: number;
  /** Standard Webhooks secret (`whsec_...`) that signs this company's completion webhooks. */
  webhookSecret: string;
  createdAt: string;
}

export type Permission = 'inviteUsers' | 'toggleSequences';

/** The part of a user that authentication and permission checks need (the workspace owns the rest). */
export interface AccountUser {
  companyId: string;
  userId: string;
  email: string;
  name: string;
  role: 'admin' | 'member';
  permissions: Record<Permission, boolean>;
}

export interface ApiKeyRecord {
  keyId: string;
  companyId: string;
  userId: string;
  userEmail: string;
  name: string;
  /** First characters of the key, to recognise it in listings; the key itself is never stored. */
  hint: string;
  createdAt: string;
  revokedAt?: string;
}

/** Who is calling: derived from a valid API key. */
export interface Principal {
  companyId: string;
  userId: string;
  userEmail: string;
  keyId: string;
}

export async function createCompany(input: {
  companyId?: string;
  name: string;
  seats: number;
  webhookSecret?: string;
}): Promise<Company> {
  const company: Company = {
    companyId: input.companyId ?? randomUUID(),
    name: input.name,
    seats: input.seats,
    webhookSecret: input.webhookSecret ?? generateWebhookSecret(),
    createdAt: new Date().toISOString(),
  };
  await dynamoDb().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...companyKey(company.companyId), type: 'company', ...company },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  return company;
}

export async function getCompany(companyId: string): Promise<Company> {
  const { Item } = await dynamoDb().send(
    new GetCommand({ TableName: tableName(), Key: companyKey(companyId) }),
  );
  if (!Item) throw new NotFoundError('Company not found');
  return Item as Company;
}

/** The account fields of a user, stored on the workspace user item (USER#<email>). */
export async function getAccountUser(companyId: string, email: string): Promise<AccountUser | undefined> {
  const { Item } = await dynamoDb().send(
    new GetCommand({ TableName: tableName(), Key: userKey(companyId, email) }),
  );
  return Item as AccountUser | undefined;
}

/**
 * Creates an API key for a user. `rawKey` is for the demo keys only (fixed, documented strings);
 * otherwise a fresh random key is generated. The raw key is returned once and never stored.
 */
export async function createApiKey(input: {
  companyId: string;
  userId: string;
  userEmail: string;
  name: string;
  rawKey?: string;
}): Promise<{ rawKey: string; record: ApiKeyRecord }> {
  const rawKey = input.rawKey ?? generateApiKey();
  const record: ApiKeyRecord = {
    keyId: randomUUID(),
    companyId: input.companyId,
    userId: input.userId,
    userEmail: input.userEmail,
    name: input.name,
    hint: rawKey.slice(0, 12),
    createdAt: new Date().toISOString(),
  };
  await dynamoDb().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...apiKeyKey(hashApiKey(rawKey)),
        ...apiKeysOfCompanyIndex(input.companyId),
        gsi1sk: `${record.createdAt}#${record.keyId}`,
        type: 'apiKey',
        ...record,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  return { rawKey, record };
}

export async function listApiKeys(companyId: string): Promise<ApiKeyRecord[]> {
  const items = await queryAll({
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    ExpressionAttributeValues: { ':pk': apiKeysOfCompanyIndex(companyId).gsi1pk },
  });
  return items.map(toApiKeyRecord);
}

/** Revokes the key with this id in the company; later requests with it get 403. */
export async function revokeApiKey(companyId: string, keyId: string): Promise<ApiKeyRecord> {
  const keys = await listApiKeys(companyId);
  const found = keys.find((k) => k.keyId === keyId);
  if (!found) throw new NotFoundError('API key not found');
  const hashed = await findKeyHash(companyId, keyId);
  const revokedAt = new Date().toISOString();
  await dynamoDb().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: apiKeyKey(hashed),
      UpdateExpression: 'SET revokedAt = if_not_exists(revokedAt, :now)',
      ExpressionAttributeValues: { ':now': revokedAt },
    }),
  );
  return { ...found, revokedAt: found.revokedAt ?? revokedAt };
}

async function findKeyHash(companyId: string, keyId: string): Promise<string> {
  const page = await dynamoDb().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk',
      FilterExpression: 'keyId = :keyId',
      ExpressionAttributeValues: { ':pk': apiKeysOfCompanyIndex(companyId).gsi1pk, ':keyId': keyId },
    }),
  );
  const item = page.Items?.[0];
  if (!item) throw new NotFoundError('API key not found');
  return String(item.pk).slice('APIKEY#'.length);
}

function toApiKeyRecord(item: Record<string, unknown>): ApiKeyRecord {
  const { keyId, companyId, userId, userEmail, name, hint, createdAt, revokedAt } =
    item as unknown as ApiKeyRecord;
  return { keyId, companyId, userId, userEmail, name, hint, createdAt, ...(revokedAt ? { revokedAt } : {}) };
}

/** Recent authentication results per key hash (a revoked or unknown key is remembered too). */
const authCache = new Map<string, { principal: Principal | undefined; until: number }>();
const authCacheLimit = 10_000;

/**
 * Resolves the caller from the `x-api-key` value: 401 when absent, 403 when unknown or revoked.
 * `cacheSeconds` > 0 keeps the answer that long in this process, saving a read per request.
 */
export async function authenticate(rawKey: string | undefined, cacheSeconds = 0): Promise<Principal> {
  if (rawKey === undefined || rawKey.trim() === '') throw new MissingKeyError();
  const keyHash = hashApiKey(rawKey);
  const now = Date.now();
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
  const { Item } = await dynamoDb().send(new GetCommand({ TableName: tableName(), Key: apiKeyKey(keyHash) }));
  if (!Item || Item.revokedAt) return undefined;
  const record = Item as unknown as ApiKeyRecord;
  return {
    companyId: record.companyId,
    userId: record.userId,
    userEmail: record.userEmail,
    keyId: record.keyId,
  };
}

/** 403 unless the key's creator currently holds the permission (read fresh, so revocation is immediate). */
/** The 403 text of a write whose key's creator lacks the permission. */
export const permissionMissingMessage = (permission: Permission) =>
  `The API key's creator lacks the ${permission} permission`;

/** A principal whose key's creator was seen to hold permission P (one read per request). */
export type Permitted<P extends Permission> = Principal & { readonly permission: P };

/** Reads the key's creator once; 403 without the permission. Use cases needing P take Permitted<P>. */
export async function requirePermission<P extends Permission>(
  principal: Principal,
  permission: P,
): Promise<Permitted<P>> {
  const user = await getAccountUser(principal.companyId, principal.userEmail);
  if (!user || user.permissions?.[permission] !== true) {
    throw new ForbiddenError(permissionMissingMessage(permission));
  }
  return { ...principal, permission };
}
