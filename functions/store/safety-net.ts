// Storage of the Safety Net connections (items in ./entities/safety-net.ts, keys in ./keys.ts): the
// connection with its grant and webhook secret sealed here, before they reach the item, and opened
// here for the function that uses them; OAuth states taken once; preventions written at most once per
// platform email; the allowlist; the recipients' remembered verdicts. Rules: functions/domain/safety-net/.
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { openSecret, sealSecret } from '../clients/secret-box';
import { tableName } from '../clients/dynamodb';
import { queryAll, send, wroteIf } from './dynamodb';
import {
  safetyNetAllowEntity,
  safetyNetConnectionEntity,
  safetyNetPreventionEntity,
  safetyNetStateEntity,
  safetyNetVerdictEntity,
  type SafetyNetConnectionItem,
  type SafetyNetPreventionItem,
  type SafetyNetStateItem,
  type SafetyNetVerdictItem,
} from './entities/safety-net';
import {
  companyKey,
  safetyNetAllowKey,
  safetyNetAllowPrefix,
  safetyNetConnectionKey,
  safetyNetConnectionPrefix,
  safetyNetConnectionsIndex,
  safetyNetPreventionKey,
  safetyNetPreventionsIndex,
  safetyNetStateKey,
  safetyNetVerdictKey,
} from './keys';
import { epochSeconds } from './table';

export type { SafetyNetConnectionItem, SafetyNetPreventionItem, SafetyNetVerdictItem };
export type SafetyNetPlatform = SafetyNetConnectionItem['platform'];
export type ConnectionStatus = SafetyNetConnectionItem['status'];

const grantPurpose = 'integration-grant' as const;

// --- Connections -------------------------------------------------------------------------------------

export interface NewConnection {
  companyId: string;
  platform: SafetyNetPlatform;
  connectedAt: string;
  /** The grant as text (JSON), sealed before it is stored. */
  grant: string;
  webhookSecret: string;
}

/** Stores a new connection (a reconnection replaces the old one, grant and all). */
export async function putConnection(connection: NewConnection): Promise<void> {
  const { companyId, platform } = connection;
  const [grant, webhookSecret] = await Promise.all([
    sealSecret(connection.grant, grantPurpose, companyId),
    sealSecret(connection.webhookSecret, grantPurpose, companyId),
  ]);
  await send(
    new PutCommand({
      TableName: tableName(),
      Item: safetyNetConnectionEntity.item({
        ...safetyNetConnectionKey(companyId, platform),
        ...safetyNetConnectionsIndex(companyId, platform),
        type: 'safetyNetConnection',
        companyId,
        platform,
        status: 'syncing',
        connectedAt: connection.connectedAt,
        lastSyncAt: null,
        lastSyncError: null,
        grant,
        grantVersion: 1,
        webhookSecret,
      }),
    }),
  );
}

/** The connection, read strongly consistent (its grant still sealed), or undefined. */
export async function readConnection(
  companyId: string,
  platform: SafetyNetPlatform,
): Promise<SafetyNetConnectionItem | undefined> {
  const { Item } = await send(
    new GetCommand({
      TableName: tableName(),
      Key: safetyNetConnectionKey(companyId, platform),
      ConsistentRead: true,
    }),
  );
  return Item && safetyNetConnectionEntity.parse(Item);
}

/** Every connection of the company. */
export async function readConnections(companyId: string): Promise<SafetyNetConnectionItem[]> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
    ExpressionAttributeValues: { ':pk': companyKey(companyId).pk, ':sk': safetyNetConnectionPrefix },
    ConsistentRead: true,
  });
  return items.map((item) => safetyNetConnectionEntity.parse(item));
}

/** Every connection of every company (the schedules' fan-out), from the connections index. */
export async function readAllConnections(): Promise<{ companyId: string; platform: SafetyNetPlatform }[]> {
  const items = await queryAll({
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    ExpressionAttributeValues: { ':pk': safetyNetConnectionsIndex('', '').gsi1pk },
    ProjectionExpression: 'companyId, platform',
  });
  return items.map((item) => safetyNetConnectionEntity.pick(item, ['companyId', 'platform']));
}

/** The grant's text. */
export function openGrant(connection: SafetyNetConnectionItem): Promise<string> {
  return openSecret(connection.grant, grantPurpose, connection.companyId);
}

export function openWebhookSecret(connection: SafetyNetConnectionItem): Promise<string> {
  return openSecret(connection.webhookSecret, grantPurpose, connection.companyId);
}

/**
 * Stores a refreshed grant if the stored one is still version `version` (and frees the refresh lease);
 * false when another writer got there first.
 */
export async function storeGrant(
  companyId: string,
  platform: SafetyNetPlatform,
  grant: string,
  version: number,
): Promise<boolean> {
  const sealed = await sealSecret(grant, grantPurpose, companyId);
  return wroteIf(
    send(
      new UpdateCommand({
        TableName: tableName(),
        Key: safetyNetConnectionKey(companyId, platform),
        UpdateExpression: 'SET #grant = :grant, grantVersion = :next REMOVE refreshingUntil',
        ConditionExpression: 'grantVersion = :version',
        ExpressionAttributeNames: { '#grant': 'grant' },
        ExpressionAttributeValues: { ':grant': sealed, ':next': version + 1, ':version': version },
      }),
    ),
  );
}

/** Takes the grant's refresh lease until `until` unless a live one is held: true when taken. */
export function takeRefreshLease(
  companyId: string,
  platform: SafetyNetPlatform,
  version: number,
  until: Date,
  now: Date,
): Promise<boolean> {
  return wroteIf(
    send(
      new UpdateCommand({
        TableName: tableName(),
        Key: safetyNetConnectionKey(companyId, platform),
        UpdateExpression: 'SET refreshingUntil = :until',
        ConditionExpression:
          'grantVersion = :version AND (attribute_not_exists(refreshingUntil) OR refreshingUntil < :now)',
        ExpressionAttributeValues: {
          ':until': until.toISOString(),
          ':now': now.toISOString(),
          ':version': version,
        },
      }),
    ),
  );
}

/** Frees a refresh lease that ended without a new grant. */
export async function dropRefreshLease(companyId: string, platform: SafetyNetPlatform): Promise<void> {
  await wroteIf(
    send(
      new UpdateCommand({
        TableName: tableName(),
        Key: safetyNetConnectionKey(companyId, platform),
        UpdateExpression: 'REMOVE refreshingUntil',
        ConditionExpression: 'attribute_exists(pk)',
      }),
    ),
  );
}

/** Records the time a 429 gave, unless a later one is recorded already. */
export async function holdPlatformUntil(
  companyId: string,
  platform: SafetyNetPlatform,
  until: Date,
): Promise<void> {
  await wroteIf(
    send(
      new UpdateCommand({
        TableName: tableName(),
        Key: safetyNetConnectionKey(companyId, platform),
        UpdateExpression: 'SET rateLimitedUntil = :until',
        ConditionExpression:
          'attribute_exists(pk) AND (attribute_not_exists(rateLimitedUntil) OR rateLimitedUntil < :until)',
        ExpressionAttributeValues: { ':until': until.toISOString() },
      }),
    ),
  );
}

/** Sets the connection's status (and, when given, its last sync's time and error); nothing if it is gone. */
export async function setConnectionStatus(
  companyId: string,
  platform: SafetyNetPlatform,
  status: ConnectionStatus,
  sync?: { lastSyncAt?: string; lastSyncError: string | null },
): Promise<void> {
  const names: Record<string, string> = { '#status': 'status' };
  const values: Record<string, unknown> = { ':status': status };
  const sets = ['#status = :status'];
  if (sync?.lastSyncAt !== undefined) {
    sets.push('lastSyncAt = :at');
    values[':at'] = sync.lastSyncAt;
  }
  if (sync) {
    sets.push('lastSyncError = :error');
    values[':error'] = sync.lastSyncError;
  }
  await wroteIf(
    send(
      new UpdateCommand({
        TableName: tableName(),
        Key: safetyNetConnectionKey(companyId, platform),
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      }),
    ),
  );
}

/** Records the webhook the platform made for this connection. */
export async function setWebhookId(
  companyId: string,
  platform: SafetyNetPlatform,
  id: string,
): Promise<void> {
  await wroteIf(
    send(
      new UpdateCommand({
        TableName: tableName(),
        Key: safetyNetConnectionKey(companyId, platform),
        UpdateExpression: 'SET webhookId = :id',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':id': id },
      }),
    ),
  );
}

export async function deleteConnection(companyId: string, platform: SafetyNetPlatform): Promise<void> {
  await send(new DeleteCommand({ TableName: tableName(), Key: safetyNetConnectionKey(companyId, platform) }));
}

// --- OAuth states --------------------------------------------------------------------------------------

export async function putState(
  stateHash: string,
  state: Pick<SafetyNetStateItem, 'companyId' | 'platform' | 'redirectUri'>,
  expiresAt: Date,
): Promise<void> {
  await send(
    new PutCommand({
      TableName: tableName(),
      Item: safetyNetStateEntity.item({
        ...safetyNetStateKey(stateHash),
        type: 'safetyNetState',
        ...state,
        expiresAt: expiresAt.toISOString(),
        ttl: epochSeconds(expiresAt),
      }),
    }),
  );
}

/** Deletes the state and returns what it held: a second take of the same state finds nothing. */
export async function takeState(stateHash: string): Promise<SafetyNetStateItem | undefined> {
  const out = await send<{ Attributes?: Record<string, unknown> }>(
    new DeleteCommand({
      TableName: tableName(),
      Key: safetyNetStateKey(stateHash),
      ReturnValues: 'ALL_OLD',
    }),
  );
  return out.Attributes && safetyNetStateEntity.parse(out.Attributes);
}

// --- Preventions ---------------------------------------------------------------------------------------

export type PreventionFields = Omit<SafetyNetPreventionItem, 'pk' | 'sk' | 'gsi1pk' | 'gsi1sk' | 'type'>;

/** Writes the prevention unless this platform email has one already: true when written. */
export function putPreventionIfNew(companyId: string, prevention: PreventionFields): Promise<boolean> {
  return wroteIf(
    send(
      new PutCommand({
        TableName: tableName(),
        Item: safetyNetPreventionEntity.item({
          ...safetyNetPreventionKey(companyId, prevention.platform, prevention.emailId),
          ...safetyNetPreventionsIndex(companyId, prevention.createdAt, prevention.id),
          type: 'safetyNetPrevention',
          ...prevention,
        }),
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    ),
  );
}

export async function readPrevention(
  companyId: string,
  platform: SafetyNetPlatform,
  emailId: string,
): Promise<SafetyNetPreventionItem | undefined> {
  const { Item } = await send(
    new GetCommand({
      TableName: tableName(),
      Key: safetyNetPreventionKey(companyId, platform, emailId),
      ConsistentRead: true,
    }),
  );
  return Item && safetyNetPreventionEntity.parse(Item);
}

/** Every prevention of the company, newest first. */
export async function readPreventions(companyId: string): Promise<SafetyNetPreventionItem[]> {
  const items = await queryAll({
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    ExpressionAttributeValues: { ':pk': safetyNetPreventionsIndex(companyId, '', '').gsi1pk },
    ScanIndexForward: false,
  });
  return items.map((item) => safetyNetPreventionEntity.parse(item));
}

// --- Allowlist -----------------------------------------------------------------------------------------

export async function putAllowed(companyId: string, email: string, addedAt: string): Promise<void> {
  await send(
    new PutCommand({
      TableName: tableName(),
      Item: safetyNetAllowEntity.item({
        ...safetyNetAllowKey(companyId, email),
        type: 'safetyNetAllow',
        email: email.toLowerCase(),
        addedAt,
      }),
    }),
  );
}

export async function deleteAllowed(companyId: string, email: string): Promise<void> {
  await send(new DeleteCommand({ TableName: tableName(), Key: safetyNetAllowKey(companyId, email) }));
}

/** The allowlisted addresses, lower-cased, in key order. */
export async function readAllowed(companyId: string): Promise<string[]> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
    ExpressionAttributeValues: { ':pk': companyKey(companyId).pk, ':sk': safetyNetAllowPrefix },
  });
  return items.map((item) => safetyNetAllowEntity.parse(item).email);
}

export async function isAllowed(companyId: string, email: string): Promise<boolean> {
  const { Item } = await send(
    new GetCommand({
      TableName: tableName(),
      Key: safetyNetAllowKey(companyId, email),
      ConsistentRead: true,
    }),
  );
  return Item !== undefined;
}

// --- Recipients' verdicts ------------------------------------------------------------------------------

/** The remembered verdict, unless its life (ttl) is over (DynamoDB deletes expired items late). */
export async function readVerdict(
  companyId: string,
  email: string,
  now: Date,
): Promise<SafetyNetVerdictItem | undefined> {
  const { Item } = await send(
    new GetCommand({ TableName: tableName(), Key: safetyNetVerdictKey(companyId, email) }),
  );
  const verdict = Item && safetyNetVerdictEntity.parse(Item);
  return verdict && verdict.ttl > epochSeconds(now) ? verdict : undefined;
}

export async function putVerdict(
  companyId: string,
  verdict: Pick<SafetyNetVerdictItem, 'email' | 'status' | 'reason' | 'validatedAt'>,
  expiresAt: Date,
): Promise<void> {
  await send(
    new PutCommand({
      TableName: tableName(),
      Item: safetyNetVerdictEntity.item({
        ...safetyNetVerdictKey(companyId, verdict.email),
        type: 'safetyNetVerdict',
        ...verdict,
        email: verdict.email.toLowerCase(),
        ttl: epochSeconds(expiresAt),
      }),
    }),
  );
}
