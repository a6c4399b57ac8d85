// Storage of the invite emails' outbox: one record per email to send, `pending` until delivered.
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { tableName } from '../clients/dynamodb';
import { epochSeconds } from './table';
import { send, wroteIf } from './dynamodb';
import { inviteEmailEntity } from './entities/workspace';
import { inviteEmailKey } from './keys';

export interface OutboxRecord {
  outboxId: string;
  companyId: string;
  to: string;
  name: string;
  role: string;
  invitedBy: string;
  inviteExpiresAt: string;
  status: 'pending' | 'sent';
  createdAt: string;
}

/** What the invite use cases need of the outbox (tests pass an in-memory one). */
export interface InviteOutbox {
  read(companyId: string, outboxId: string): Promise<OutboxRecord | undefined>;
  /** pending -> sent; false when the record was not pending (sent by another delivery, or gone). */
  markSent(companyId: string, outboxId: string, now: Date): Promise<boolean>;
}

/** The transaction item that writes a new pending record (kept 30 days). */
export function outboxPut(record: Omit<OutboxRecord, 'status'>, now: Date) {
  return {
    Put: {
      TableName: tableName(),
      Item: inviteEmailEntity.item({
        ...inviteEmailKey(record.companyId, record.outboxId),
        type: 'inviteEmail',
        ...record,
        status: 'pending',
        ttl: epochSeconds(now) + 30 * 86_400,
      }),
    },
  };
}

export const dynamoOutbox: InviteOutbox = {
  async read(companyId, outboxId) {
    const { Item } = await send(
      new GetCommand({
        TableName: tableName(),
        Key: inviteEmailKey(companyId, outboxId),
        ConsistentRead: true,
      }),
    );
    if (!Item) return undefined;
    const { to, name, role, invitedBy, inviteExpiresAt, status, createdAt } = inviteEmailEntity.parse(Item);
    return { outboxId, companyId, to, name, role, invitedBy, inviteExpiresAt, status, createdAt };
  },
  markSent(companyId, outboxId, now) {
    return wroteIf(
      send(
        new UpdateCommand({
          TableName: tableName(),
          Key: inviteEmailKey(companyId, outboxId),
          UpdateExpression: 'SET #status = :sent, sentAt = :now',
          ConditionExpression: '#status = :pending',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':sent': 'sent', ':pending': 'pending', ':now': now.toISOString() },
        }),
      ),
    );
  },
};
