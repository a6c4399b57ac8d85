// Storage of companies, the users who hold API keys (their account fields) and the API keys themselves:
// their keys, reads, writes and conditions. The rules (authentication, permissions) are in
// functions/domain/accounts/.
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { tableName } from '../clients/dynamodb';
import { queryAll, send } from './dynamodb';
import { apiKeyEntity, companyEntity, publishableOriginEntity, userEntity } from './entities/accounts';
import {
  apiKeyKey,
  apiKeysOfCompanyIndex,
  companyKey,
  publishableOriginKey,
  publishableOriginPk,
  userIdIndex,
  userKey,
} from './keys';

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
  /** Set on a publishable (`mv_pub_`) key: the one browser origin it may be used from. */
  origin?: string;
}

/** Writes a new company; one with this id existing already is an error (ConditionalCheckFailed). */
export async function putNewCompany(company: Company): Promise<void> {
  await send(
    new PutCommand({
      TableName: tableName(),
      Item: companyEntity.item({ ...companyKey(company.companyId), type: 'company', ...company }),
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

export async function readCompany(companyId: string): Promise<Company | undefined> {
  const { Item } = await send(new GetCommand({ TableName: tableName(), Key: companyKey(companyId) }));
  if (!Item) return undefined;
  const { companyId: id, name, seats, webhookSecret, createdAt } = companyEntity.parse(Item);
  return { companyId: id, name, seats, webhookSecret, createdAt };
}

/** The account fields of a user, stored on the workspace user item (USER#<email>). */
export async function readAccountUser(companyId: string, email: string): Promise<AccountUser | undefined> {
  const { Item } = await send(new GetCommand({ TableName: tableName(), Key: userKey(companyId, email) }));
  if (!Item) return undefined;
  const user = userEntity.parse(Item);
  // an invite (no userId yet) holds no key and passes no permission check
  return {
    companyId: user.companyId,
    userId: user.userId ?? '',
    email: user.email,
    name: user.name,
    role: user.role,
    permissions: user.permissions,
  };
}

/** An active user item in the workspace's user format (the workspace reads the same item). */
export async function putActiveUser(user: AccountUser, createdAt: string): Promise<void> {
  await send(
    new PutCommand({
      TableName: tableName(),
      Item: userEntity.item({
        ...userKey(user.companyId, user.email),
        // The workspace finds a user by id through this index (GET /v1/users/{id}).
        ...userIdIndex(user.companyId, user.userId),
        type: 'user',
        ...user,
        email: user.email.toLowerCase(),
        status: 'active',
        createdAt,
      }),
    }),
  );
}

/** Stores a new key under the SHA-256 of its raw value (an existing hash is an error, never overwritten). */
export async function putNewApiKey(keyHash: string, record: ApiKeyRecord): Promise<void> {
  await send(
    new PutCommand({
      TableName: tableName(),
      Item: apiKeyEntity.item({
        ...apiKeyKey(keyHash),
        ...apiKeysOfCompanyIndex(record.companyId),
        gsi1sk: `${record.createdAt}#${record.keyId}`,
        type: 'apiKey',
        ...record,
      }),
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

function toApiKeyRecord(item: Record<string, unknown>): ApiKeyRecord {
  const { keyId, companyId, userId, userEmail, name, hint, createdAt, revokedAt, origin } =
    apiKeyEntity.parse(item);
  return {
    keyId,
    companyId,
    userId,
    userEmail,
    name,
    hint,
    createdAt,
    ...(revokedAt ? { revokedAt } : {}),
    ...(origin ? { origin } : {}),
  };
}

/** The company's keys, oldest first (the company's key index). */
export async function readApiKeys(companyId: string): Promise<ApiKeyRecord[]> {
  const items = await queryAll({
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    ExpressionAttributeValues: { ':pk': apiKeysOfCompanyIndex(companyId).gsi1pk },
  });
  return items.map(toApiKeyRecord);
}

/** The key stored under this hash, revoked or not. */
export async function readApiKey(keyHash: string): Promise<ApiKeyRecord | undefined> {
  const { Item } = await send(new GetCommand({ TableName: tableName(), Key: apiKeyKey(keyHash) }));
  return Item ? toApiKeyRecord(Item) : undefined;
}

/** The hash a company's key id is stored under, or undefined. */
export async function findApiKeyHash(companyId: string, keyId: string): Promise<string | undefined> {
  const [item] = await queryAll({
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    FilterExpression: 'keyId = :keyId',
    ExpressionAttributeValues: { ':pk': apiKeysOfCompanyIndex(companyId).gsi1pk, ':keyId': keyId },
  });
  return item ? String(item.pk).slice(apiKeyKey('').pk.length) : undefined;
}

/** Marks the key revoked at `at`, unless it was revoked before (the first time stays). */
export async function markApiKeyRevoked(keyHash: string, at: string): Promise<void> {
  await send(
    new UpdateCommand({
      TableName: tableName(),
      Key: apiKeyKey(keyHash),
      UpdateExpression: 'SET revokedAt = if_not_exists(revokedAt, :now)',
      ExpressionAttributeValues: { ':now': at },
    }),
  );
}

/** Records that the publishable key under `keyHash` may be used from `origin` (for CORS preflights). */
export async function putPublishableOrigin(origin: string, keyId: string, keyHash: string): Promise<void> {
  await send(
    new PutCommand({
      TableName: tableName(),
      Item: publishableOriginEntity.item({
        ...publishableOriginKey(origin, keyId),
        type: 'publishableOrigin',
        keyHash,
      }),
    }),
  );
}

/** The hashes of the publishable keys ever made for `origin`, revoked or not. */
export async function readPublishableOriginKeyHashes(origin: string): Promise<string[]> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': publishableOriginPk(origin) },
  });
  return items.map((item) => publishableOriginEntity.parse(item).keyHash);
}
