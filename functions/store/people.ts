// Storage of people (PERSON#<sub>), the invite links on invited users' items (their token's hash and
// its index entry) and the password-reset links. The rules are in functions/domain/people/.
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { tableName } from '../clients/dynamodb';
import { ifConditionHolds, send, wroteIf } from './dynamodb';
import { userEntity, type UserItem } from './entities/accounts';
import {
  passwordResetEntity,
  personEntity,
  type PasswordResetItem,
  type PersonItem,
} from './entities/people';
import { inviteTokenIndex, passwordResetKey, personKey, userIdIndex, userKey } from './keys';
import { epochSeconds } from './table';
import type { WorkspaceWrite } from './workspace';

export type { PasswordResetItem, PersonItem };

/** The person of this `sub`, or undefined (read strongly consistent: it may have been written a moment ago). */
export async function readPerson(sub: string): Promise<PersonItem | undefined> {
  const { Item } = await send(
    new GetCommand({ TableName: tableName(), Key: personKey(sub), ConsistentRead: true }),
  );
  return Item && personEntity.parse(Item);
}

/** Links a person to a user that has none yet (the demo seed; accepting an invite uses personWrite). */
export async function putPerson(person: Omit<PersonItem, 'type' | 'pk' | 'sk'>): Promise<void> {
  await send(new PutCommand(personWrite(person).Put));
}

/** The transaction item of a new person; one with this `sub` existing already fails it. */
export function personWrite(person: Omit<PersonItem, 'type' | 'pk' | 'sk'>) {
  return {
    Put: {
      TableName: tableName(),
      Item: personEntity.item({ ...personKey(person.sub), type: 'person', ...person }),
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

/**
 * The invited user whose link carries this token hash, from the link index, read again strongly
 * consistent; undefined when no invite has it now (a refresh moved the index entry, or it was used).
 */
export async function findInviteByTokenHash(tokenHash: string): Promise<UserItem | undefined> {
  const index = inviteTokenIndex(tokenHash);
  const page = await send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk = :sk',
      ExpressionAttributeValues: { ':pk': index.gsi1pk, ':sk': index.gsi1sk },
    }),
  );
  const indexed = page.Items?.[0];
  if (!indexed) return undefined;
  const { companyId, email } = userEntity.pick(indexed, ['companyId', 'email']);
  const { Item } = await send(
    new GetCommand({ TableName: tableName(), Key: userKey(companyId, email), ConsistentRead: true }),
  );
  const user = Item && userEntity.parse(Item);
  return user?.status === 'invited' && user.inviteTokenHash === tokenHash ? user : undefined;
}

/**
 * Holds the invite for one acceptance until `until`: false when its link changed, it was used, or
 * another acceptance holds it (two tabs submitting the same link never both create a person).
 */
export function claimInvite(
  companyId: string,
  email: string,
  tokenHash: string,
  until: Date,
  now: Date,
): Promise<boolean> {
  return wroteIf(
    send(
      new UpdateCommand({
        TableName: tableName(),
        Key: userKey(companyId, email),
        UpdateExpression: 'SET inviteClaimedUntil = :until',
        ConditionExpression:
          '#status = :invited AND inviteTokenHash = :hash AND (attribute_not_exists(inviteClaimedUntil) OR inviteClaimedUntil < :now)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':invited': 'invited',
          ':hash': tokenHash,
          ':until': until.toISOString(),
          ':now': now.toISOString(),
        },
      }),
    ),
  );
}

/** Lets another acceptance of the invite start (this one failed before it committed). */
export async function releaseInvite(companyId: string, email: string, tokenHash: string): Promise<void> {
  await wroteIf(
    send(
      new UpdateCommand({
        TableName: tableName(),
        Key: userKey(companyId, email),
        UpdateExpression: 'REMOVE inviteClaimedUntil',
        ConditionExpression: '#status = :invited AND inviteTokenHash = :hash',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':invited': 'invited', ':hash': tokenHash },
      }),
    ),
  );
}

export interface Activation {
  invite: UserItem;
  tokenHash: string;
  userId: string;
  name: string;
  personSub: string;
  createdAt: string;
}

/**
 * The transaction item that turns an invite into an active user (same role and permissions, its id
 * in the id index, the link gone), if it is still the invite of that link.
 */
export function activatedUserWrite(activation: Activation): WorkspaceWrite {
  const { invite } = activation;
  return {
    Put: {
      TableName: tableName(),
      Item: userEntity.item({
        ...userKey(invite.companyId, invite.email),
        ...userIdIndex(invite.companyId, activation.userId),
        type: 'user',
        companyId: invite.companyId,
        userId: activation.userId,
        email: invite.email,
        name: activation.name,
        role: invite.role,
        status: 'active',
        permissions: invite.permissions,
        createdAt: activation.createdAt,
        ...(invite.invitedAt ? { invitedAt: invite.invitedAt } : {}),
        ...(invite.invitedBy ? { invitedBy: invite.invitedBy } : {}),
        personSub: activation.personSub,
      }),
      ConditionExpression: '#status = :invited AND inviteTokenHash = :hash',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':invited': 'invited', ':hash': activation.tokenHash },
    },
  };
}

/** Stores a password-reset link under its token's hash, kept until it expires. */
export async function putPasswordReset(
  tokenHash: string,
  reset: { sub: string; companyId: string; expiresAt: Date },
): Promise<void> {
  await send(
    new PutCommand({
      TableName: tableName(),
      Item: passwordResetEntity.item({
        ...passwordResetKey(tokenHash),
        type: 'passwordReset',
        sub: reset.sub,
        companyId: reset.companyId,
        expiresAt: reset.expiresAt.toISOString(),
        ttl: epochSeconds(reset.expiresAt),
      }),
    }),
  );
}

/**
 * Uses a password-reset link once: deletes it if it is there and unexpired, returning what it was
 * for; undefined when it is unknown, used or expired.
 */
export async function takePasswordReset(
  tokenHash: string,
  now: Date,
): Promise<PasswordResetItem | undefined> {
  const deleted = await ifConditionHolds(
    send<{ Attributes?: Record<string, unknown> }>(
      new DeleteCommand({
        TableName: tableName(),
        Key: passwordResetKey(tokenHash),
        ConditionExpression: 'attribute_exists(pk) AND expiresAt > :now',
        ExpressionAttributeValues: { ':now': now.toISOString() },
        ReturnValues: 'ALL_OLD',
      }),
    ),
  );
  return deleted?.Attributes && passwordResetEntity.parse(deleted.Attributes);
}
