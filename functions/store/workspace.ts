// Storage of the workspace items (connected mailboxes and domains with their reputation blocks, users
// and invites, Safety Net mailboxes and sequences; keys in ./keys.ts, items declared in
// ./entities/workspace.ts): prefix queries of a company's partition, id-index lookups and batched
// reads, each item parsed by its entity; batched writes, the workspace lock, and the one transaction
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
import { batchGetAll, batchWriteAll, queryAll, send, wroteIf } from './dynamodb';
import { cancellationReasons } from './conditions';
import { userEntity, type UserItem } from './entities/accounts';
import type { StoredItem } from './entities/declare';
import {
  connectedDomainEntity,
  connectedMailboxEntity,
  domainReputationEntity,
  mailboxReputationEntity,
  parseMailboxReputationBlock,
  safetyNetMailboxEntity,
  safetyNetSequenceEntity,
  workspaceLockEntity,
  type ConnectedDomainItem,
  type ConnectedMailboxItem,
  type DomainReputationItem,
  type MailboxReputationItem,
  type SafetyNetMailboxItem,
  type SafetyNetSequenceItem,
} from './entities/workspace';
import {
  companyKey,
  connectedDomainKey,
  connectedDomainPrefix,
  connectedMailboxIdIndex,
  connectedMailboxPrefix,
  inviteTokenIndex,
  domainReputationKey,
  domainReputationPrefix,
  mailboxesOfOwnerIndex,
  mailboxReputationKey,
  mailboxReputationPrefix,
  safetyNetMailboxIdIndex,
  safetyNetMailboxPrefix,
  safetyNetSequenceIdIndex,
  safetyNetSequencePrefix,
  userIdIndex,
  userKey,
  userPrefix,
  workspaceLockKey,
  type ItemKey,
} from './keys';

/** One write of a workspace transaction (built here and in ./list-views.ts, ./invite-outbox.ts). */
export type WorkspaceWrite = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** What the generic reads below need of an entity (every declared entity has it). */
interface Parses<T> {
  parse(stored: StoredItem): T;
}

// --- Generic reads, each item parsed by its entity (a malformed one throws MalformedItemError) -----

/** Every item of the company whose sort key starts with the prefix (all pages), strongly consistent. */
async function queryPrefix<T>(entity: Parses<T>, companyId: string, prefix: string): Promise<T[]> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
    ExpressionAttributeValues: { ':pk': companyKey(companyId).pk, ':sk': prefix },
    ConsistentRead: true,
  });
  return items.map((item) => entity.parse(item));
}

/** One item by its key (`consistent`: strongly consistent), or undefined. */
export async function getItem<T>(
  entity: Parses<T>,
  key: ItemKey,
  consistent = false,
): Promise<T | undefined> {
  const { Item } = await send(
    new GetCommand({ TableName: tableName(), Key: { pk: key.pk, sk: key.sk }, ConsistentRead: consistent }),
  );
  return Item && entity.parse(Item);
}

/** BatchGet of any number of keys, 100 per request, several requests at once; unprocessed keys retried. */
export async function batchGet<T>(
  entity: Parses<T>,
  keys: ItemKey[],
  { concurrency = 8, consistent = false }: { concurrency?: number; consistent?: boolean } = {},
): Promise<T[]> {
  const items = await batchGetAll(
    keys.map((k) => ({ pk: k.pk, sk: k.sk })),
    { concurrency, consistent },
  );
  return items.map((item) => entity.parse(item));
}

/** The index copy of the one item of a gsi1 key (an id lookup), or undefined. It may lag a write. */
async function indexCopy(index: { gsi1pk: string; gsi1sk: string }): Promise<StoredItem | undefined> {
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

/**
 * The item an id index entry points at, read strongly consistent (the index copy may lag a write), if
 * it still has that id; other companies' ids never resolve (the index key holds the company).
 */
async function getById<T extends { id: string }>(
  entity: Parses<T> & { pick(stored: StoredItem, attributes: readonly ('pk' | 'sk')[]): ItemKey },
  index: { gsi1pk: string; gsi1sk: string },
  id: string,
): Promise<T | undefined> {
  const indexed = await indexCopy(index);
  if (!indexed) return undefined;
  const item = await getItem(entity, entity.pick(indexed, ['pk', 'sk']), true);
  return item?.id === id ? item : undefined;
}

// --- The workspace items, read ---------------------------------------------------------------------

export const readConnectedMailboxes = (companyId: string): Promise<ConnectedMailboxItem[]> =>
  queryPrefix(connectedMailboxEntity, companyId, connectedMailboxPrefix);

/** Every yearly reputation block of every connected mailbox. */
export const readMailboxReputations = (companyId: string): Promise<MailboxReputationItem[]> =>
  queryPrefix(mailboxReputationEntity, companyId, mailboxReputationPrefix);

export const readConnectedDomains = (companyId: string): Promise<ConnectedDomainItem[]> =>
  queryPrefix(connectedDomainEntity, companyId, connectedDomainPrefix);

/** Every yearly reputation block of every connected domain. */
export const readDomainReputations = (companyId: string): Promise<DomainReputationItem[]> =>
  queryPrefix(domainReputationEntity, companyId, domainReputationPrefix);

/** Active users and invites, whichever module wrote them. */
export const readUsers = (companyId: string): Promise<UserItem[]> =>
  queryPrefix(userEntity, companyId, userPrefix);

export const readSafetyNetMailboxes = (companyId: string): Promise<SafetyNetMailboxItem[]> =>
  queryPrefix(safetyNetMailboxEntity, companyId, safetyNetMailboxPrefix);

/** Every sequence row, or the owner rows of one sequence (same service and crmSequenceId). */
export const readSafetyNetSequences = (
  companyId: string,
  sequence?: { service: string; crmSequenceId: string },
): Promise<SafetyNetSequenceItem[]> =>
  queryPrefix(
    safetyNetSequenceEntity,
    companyId,
    safetyNetSequencePrefix(sequence?.service, sequence?.crmSequenceId),
  );

export const findConnectedMailbox = (companyId: string, id: string) =>
  getById(connectedMailboxEntity, connectedMailboxIdIndex(companyId, id), id);

export const findSafetyNetMailbox = (companyId: string, id: string) =>
  getById(safetyNetMailboxEntity, safetyNetMailboxIdIndex(companyId, id), id);

export const findSafetyNetSequence = (companyId: string, id: string) =>
  getById(safetyNetSequenceEntity, safetyNetSequenceIdIndex(companyId, id), id);

export const readConnectedDomain = (companyId: string, domain: string) =>
  getItem(connectedDomainEntity, connectedDomainKey(companyId, domain));

/**
 * Yearly reputation blocks of several mailboxes (one BatchGet of mailboxes x years keys), only the
 * attributes a list page needs, checked by hand: it reads one block per row of the page.
 */
export const readMailboxReputationBlocks = (
  companyId: string,
  mailboxIds: string[],
  years: number[],
): Promise<Pick<MailboxReputationItem, 'mailboxId' | 'year' | 'days'>[]> =>
  batchGet(
    { parse: parseMailboxReputationBlock },
    mailboxIds.flatMap((id) => years.map((year) => mailboxReputationKey(companyId, id, year))),
  );

export const readDomainReputationBlocks = (
  companyId: string,
  domain: string,
  years: number[],
): Promise<DomainReputationItem[]> =>
  batchGet(
    domainReputationEntity,
    years.map((year) => domainReputationKey(companyId, domain, year)),
  );

/** The user item of this email (active user or invite), read strongly consistent. */
export const readUser = (companyId: string, email: string): Promise<UserItem | undefined> =>
  getItem(userEntity, userKey(companyId, email), true);

/** The email of the active user with this id, from the id index (users the accounts module wrote are not in it). */
export async function userEmailById(companyId: string, id: string): Promise<string | undefined> {
  const indexed = await indexCopy(userIdIndex(companyId, id));
  return indexed && userEntity.pick(indexed, ['email']).email;
}

/** A person's connected mailboxes ({email, id}), from the owner index of the mailbox items. */
export async function readMailboxesOfOwner(
  companyId: string,
  ownerEmail: string,
): Promise<{ email: string; id: string }[]> {
  const items = await queryAll({
    IndexName: 'gsi2',
    KeyConditionExpression: 'gsi2pk = :pk',
    ExpressionAttributeValues: { ':pk': mailboxesOfOwnerIndex(companyId, ownerEmail, '').gsi2pk },
    ProjectionExpression: 'email, id',
  });
  return items.map((item) => connectedMailboxEntity.pick(item, ['email', 'id']));
}

// --- Batched writes ----------------------------------------------------------------------------------

/** Puts and deletes, 25 per BatchWrite, several requests at once; unprocessed items retried. */
export function writeItems(
  { puts, deletes = [] }: { puts: StoredItem[]; deletes?: ItemKey[] },
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
    const reasons = cancellationReasons(error);
    if (!reasons) throw error;
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
  /** SHA-256 of the invite link's one-time token; a refresh replaces it, and the old link dies. */
  inviteTokenHash: string;
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
        // The accept page finds the invite by its link's token hash.
        ...inviteTokenIndex(user.inviteTokenHash),
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
