// Companies, users (the account fields and the workspace's, on one item), API keys and the origins
// of publishable keys. Keys: ../keys.ts (companyKey, userKey + userIdIndex, apiKeyKey +
// apiKeysOfCompanyIndex, publishableOriginKey).
import { boolean, Entity, item, map, number, string } from 'dynamodb-toolbox';
import { declared } from './declare';
import { mailvetTable } from './table';

const keys = { pk: string().key(), sk: string().key() };
const permissions = map({ inviteUsers: boolean(), toggleSequences: boolean() });

/** COMPANY#<companyId> / COMPANY */
const company = new Entity({
  name: 'company',
  table: mailvetTable,
  entityAttribute: false,
  timestamps: false,
  schema: item({
    ...keys,
    type: string().const('company'),
    companyId: string(),
    name: string(),
    seats: number(),
    webhookSecret: string(),
    createdAt: string(),
  }),
});
export const companyEntity = declared(company);

/**
 * COMPANY#<companyId> / USER#<email>; an active user also gsi1 COMPANY#<c>#USER#<userId> / USER.
 * Invites have no userId until accepted.
 */
const user = new Entity({
  name: 'user',
  table: mailvetTable,
  entityAttribute: false,
  timestamps: false,
  schema: item({
    ...keys,
    gsi1pk: string().optional(),
    gsi1sk: string().optional(),
    type: string().const('user'),
    companyId: string(),
    userId: string().optional(),
    email: string(),
    name: string(),
    role: string().enum('admin', 'member'),
    status: string().enum('active', 'invited'),
    permissions,
    createdAt: string().optional(),
    inviteExpiresAt: string().optional(),
    invitedAt: string().optional(),
    invitedBy: string().optional(),
  }),
});
export const userEntity = declared(user);

/** APIKEY#<sha256 hex> / APIKEY, gsi1 COMPANY#<c>#APIKEYS / <createdAt>#<keyId>. */
const apiKey = new Entity({
  name: 'apiKey',
  table: mailvetTable,
  entityAttribute: false,
  timestamps: false,
  schema: item({
    ...keys,
    gsi1pk: string(),
    gsi1sk: string(),
    type: string().const('apiKey'),
    keyId: string(),
    companyId: string(),
    userId: string(),
    userEmail: string(),
    name: string(),
    hint: string(),
    createdAt: string(),
    revokedAt: string().optional(),
    origin: string().optional(),
  }),
});
export const apiKeyEntity = declared(apiKey);

/** PUBORIGIN#<origin> / KEY#<keyId>: a publishable key allowed from that origin. */
const publishableOrigin = new Entity({
  name: 'publishableOrigin',
  table: mailvetTable,
  entityAttribute: false,
  timestamps: false,
  schema: item({ ...keys, type: string().const('publishableOrigin'), keyHash: string() }),
});
export const publishableOriginEntity = declared(publishableOrigin);
