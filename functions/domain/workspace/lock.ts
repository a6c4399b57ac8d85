// The workspace lock: a lease an import holds while it rewrites items and views. API writes check it
// inside their transactions, so none can slip between an import's item writes and its view rebuild.
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { dynamoDb, tableName } from '../../clients/dynamodb';
import { ConflictError } from '../../errors';
import { workspaceLockKey } from '../../store/keys';
import type { TransactItem } from './views';
import { wroteIf } from '../../store/dynamodb';

/** Long enough for the largest import; a crashed import frees the workspace after it. */
const leaseMs = 15 * 60_000;

export async function acquireWorkspaceLock(companyId: string, now = new Date()): Promise<string> {
  const token = randomUUID();
  const acquired = await wroteIf(
    dynamoDb().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...workspaceLockKey(companyId),
          type: 'workspaceLock',
          token,
          until: new Date(now.getTime() + leaseMs).toISOString(),
        },
        ConditionExpression: 'attribute_not_exists(#until) OR #until < :now',
        ExpressionAttributeNames: { '#until': 'until' },
        ExpressionAttributeValues: { ':now': now.toISOString() },
      }),
    ),
  );
  if (!acquired) throw new ConflictError('Another import of this workspace is running');
  return token;
}

export async function releaseWorkspaceLock(companyId: string, token: string): Promise<void> {
  // Not ours any more (the lease ran out and another import took it): nothing to release.
  await wroteIf(
    dynamoDb().send(
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
export function workspaceUnlocked(companyId: string, now: Date): TransactItem {
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
