// Storage of the workspace items (connected mailboxes and domains with their reputation blocks, users
// and invites, Safety Net mailboxes and sequences; keys in ./keys.ts): prefix queries of a company's
// partition, id-index lookups, batched reads and writes, the workspace lock, and the one transaction
// every API write commits through. The rules are in functions/domain/workspace/.
import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { tableName } from '../clients/dynamodb';
import { batchGetAll, batchWriteAll, queryAll, send, wroteIf, type Item } from './dynamodb';
import { userEntity } from './entities/accounts';
import { workspaceLockEntity } from './entities/workspace';
import { companyKey, mailboxesOfOwnerIndex, userKey, workspaceLockKey, type ItemKey } from './keys';

export type { Item };

/** One write of a workspace transaction (built here and in ./list-views.ts, ./invite-outbox.ts). */
export type WorkspaceWrite = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** Every item of the company whose sort key starts with the prefix (all pages). */
export async function queryPrefix(companyId: string, prefix: string, consistent = true): Promise<Item[]> {
  return queryAll({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
    ExpressionAttributeValues: { ':pk': companyKey(companyId).pk, ':sk': prefix },
    ConsistentRead: consistent,
  });
}

/** The one item of a gsi1 key (an id lookup), or undefined. The index copy may lag a write. */
export async function getByIndex(index: { gsi1pk: string; gsi1sk: string }): Promise<Item | undefined> {
  const page = await send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk = :sk',
      ExpressionAttributeValues: { ':pk': index.gsi1pk, ':sk': index.gsi1sk },
    }),
  );
  return page.Items?.[0];
}

/** One item by its key (`consistent`: strongly consistent). */
export async function getItem(key: ItemKey, consistent = false): Promise<Item | undefined> {
  const { Item } = await send(
    new GetCommand({ TableName: tableName(), Key: { pk: key.pk, sk: key.sk }, ConsistentRead: consistent }),
  );
  return Item;
}

/** The user item of this email (active user or invite), read strongly consistent. */
export function getUserItem(companyId: string, email: string): Promise<Item | undefined> {
  return getItem(userKey(companyId, email), true);
}

/** A person's connected mailboxes ({email, id}), from the owner index of the mailbox items. */
export async function mailboxesOfOwnerItems(
  companyId: string,
  ownerEmail: string,
): Promise<{ email: string; id: string }[]> {
  const items = await queryAll({
    IndexName: 'gsi2',
    KeyConditionExpression: 'gsi2pk = :pk',
    ExpressionAttributeValues: { ':pk': mailboxesOfOwnerIndex(companyId, ownerEmail, '').gsi2pk },
    ProjectionExpression: 'email, id',
  });
  return items.map((item) => ({ email: String(item.email), id: String(item.id) }));
}

/** BatchGet of any number of keys, 100 per request, several requests at once; unprocessed keys retried. */
export function batchGet(keys: ItemKey[], concurrency = 8, consistent = false): Promise<Item[]> {
  return batchGetAll(
    keys.map((k) => ({ pk: k.pk, sk: k.sk })),
    { concurrency, consistent },
  );
}

/** Puts and deletes, 25 per BatchWrite, several requests at once; unprocessed items retried. */
export function writeItems(
  { puts, deletes = [] }: { puts: Item[]; deletes?: ItemKey[] },
  concurrency = 8,
): Promise<void> {
  return batchWriteAll(
    [
      ...puts.map((item) => ({ PutRequest: { Item: item } })),
      ...deletes.map((key) => ({ DeleteRequest: { Key: { pk: key.pk, sk: key.sk } } })),
    ],
    { concurrency },
  );
}

// --- The workspace lock: a lease an import holds while it rewrites items and views ---------------

/** Takes the lock unless an unexpired lease holds it; false when it does. */
export function putWorkspaceLock(companyId: string, token: string, until: Date, now: Date): Promise<boolean> {
  return wroteIf(
    send(
      new PutCommand({
        TableName: tableName(),
        Item: workspaceLockEntity.item({
          ...workspaceLockKey(companyId),
          type: 'workspaceLock',
          token,
          until: until.toISOString(),
        }),
        ConditionExpression: 'attribute_not_exists(#until) OR #until < :now',
        ExpressionAttributeNames: { '#until': 'until' },
        ExpressionAttributeValues: { ':now': now.toISOString() },
      }),
    ),
  );
}

/** Deletes the lock if this token still holds it (a lease that ran out may be another import's now). */
export async function deleteWorkspaceLock(companyId: string, token: string): Promise<void> {
  await wroteIf(
    send(
      new DeleteCommand({
        TableName: tableName(),
        Key: workspaceLockKey(companyId),
        ConditionExpression: '#token = :token',
        ExpressionAttributeNames: { '#token': 'token' },
        ExpressionAttributeValues: { ':token': token },
      }),
    ),
  );
}

/** A transaction item that fails while an import holds the lock. */
function workspaceUnlocked(companyId: string, now: Date): WorkspaceWrite {
  return {
    ConditionCheck: {
      TableName: tableName(),
      Key: workspaceLockKey(companyId),
      ConditionExpression: 'attribute_not_exists(#until) OR #until < :now',
      ExpressionAttributeNames: { '#until': 'until' },
      ExpressionAttributeValues: { ':now': now.toISOString() },
    },
  };
}

/**
 * Commits an API write as one transaction behind the workspace lock: `committed`; `locked` when an
 * import holds the lock; `conflict` when another condition failed or another transaction held an item
 * (someone else wrote first: read again and retry). Any other error is thrown.
 */
export async function commitWorkspaceWrites(
  companyId: string,
  now: Date,
  writes: WorkspaceWrite[],
): Promise<'committed' | 'locked' | 'conflict'> {
  try {
    await send(new TransactWriteCommand({ TransactItems: [workspaceUnlocked(companyId, now), ...writes] }));
    return 'committed';
  } catch (error) {
    const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons;
    if ((error as Error).name !== 'TransactionCanceledException' || !reasons) throw error;
    if (reasons[0]?.Code === 'ConditionalCheckFailed') return 'locked';
    if (reasons.some((r) => r.Code === 'ConditionalCheckFailed' || r.Code === 'TransactionConflict'))
      return 'conflict';
    throw error;
  }
}

// --- Writes of a workspace transaction ------------------------------------------------------------

/** Sets an existing item's `activated` switch (a Safety Net mailbox, a sequence's owner row). */
export function setActivatedWrite(key: ItemKey, activated: boolean): WorkspaceWrite {
  return {
    Update: {
      TableName: tableName(),
      Key: { pk: key.pk, sk: key.sk },
      UpdateExpression: 'SET activated = :activated',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':activated': activated },
    },
  };
}

export interface InvitedUser {
  companyId: string;
  email: string;
  name: string;
  role: 'admin' | 'member';
  inviteExpiresAt: string;
  invitedAt: string;
  invitedBy: string;
}

/**
 * Writes an invited user. The seat rule itself is guarded by the users view's version; this condition
 * guards the item against an active user appearing by another path in between.
 */
export function invitedUserWrite(user: InvitedUser): WorkspaceWrite {
  return {
    Put: {
      TableName: tableName(),
      Item: userEntity.item({
        ...userKey(user.companyId, user.email),
        type: 'user',
        ...user,
        status: 'invited',
        permissions: { inviteUsers: user.role === 'admin', toggleSequences: user.role === 'admin' },
      }),
      ConditionExpression: 'attribute_not_exists(pk) OR #status = :invited',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':invited': 'invited' },
    },
  };
}
