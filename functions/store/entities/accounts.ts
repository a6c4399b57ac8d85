// Companies, users (the account fields and the workspace's, on one item), API keys and the origins
// of publishable keys. Keys: ../keys.ts (companyKey, userKey + userIdIndex, apiKeyKey +
// apiKeysOfCompanyIndex, publishableOriginKey).
import { boolean, map, number, string } from 'dynamodb-toolbox';
import { storedEntity, type ItemOf } from './declare';

const permissions = map({ inviteUsers: boolean(), toggleSequences: boolean() });

/** COMPANY#<companyId> / COMPANY */
export const companyEntity = storedEntity('company', {
  type: string().const('company'),
  companyId: string(),
  name: string(),
  seats: number(),
  webhookSecret: string(),
  createdAt: string(),
});

/**
 * COMPANY#<companyId> / USER#<email>; an active user also gsi1 COMPANY#<c>#USER#<userId> / USER.
 * Invites have no userId until accepted.
 */
export const userEntity = storedEntity('user', {
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
  /** An invite: the SHA-256 of its link's one-time token (the token itself is never stored). */
  inviteTokenHash: string().optional(),
  /** An invite being accepted: until then (ISO) no other acceptance of its link may start. */
  inviteClaimedUntil: string().optional(),
  /** An active user who signs in as a person: the user pool's `sub` (functions/store/entities/people.ts). */
  personSub: string().optional(),
});

/** APIKEY#<sha256 hex> / APIKEY, gsi1 COMPANY#<c>#APIKEYS / <createdAt>#<keyId>. */
export const apiKeyEntity = storedEntity('apiKey', {
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
});

/** PUBORIGIN#<origin> / KEY#<keyId>: a publishable key allowed from that origin. */
export const publishableOriginEntity = storedEntity('publishableOrigin', {
  type: string().const('publishableOrigin'),
  keyHash: string(),
});

export type UserItem = ItemOf<typeof userEntity>;
