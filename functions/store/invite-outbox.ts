// Storage of the email outbox: one record per email to send (invites, password resets, Safety Net
// prevention notices), `pending` until delivered. The item type and key keep the invite names they were
// born with (entities/workspace.ts inviteEmailEntity).
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { tableName } from '../clients/dynamodb';
import { epochSeconds } from './table';
import { send, wroteIf } from './dynamodb';
import { inviteEmailEntity } from './entities/workspace';
import { inviteEmailKey } from './keys';

/** What an outbox email is; the first part of its .eml file name locally. */
export type EmailKind = 'invite' | 'password_reset' | 'safety_net_prevention';

/** The invite an invite email is about (invite records only). */
export interface InviteFields {
  name: string;
  role: string;
  invitedBy: string;
  inviteExpiresAt: string;
}

export interface OutboxRecord extends Partial<InviteFields> {
  outboxId: string;
  companyId: string;
  kind: EmailKind;
  to: string;
  /** What is sent; absent on an invite written before the outbox kept them, and once sent. */
  subject?: string;
  text?: string;
  status: 'pending' | 'sent';
  createdAt: string;
}

/** A new record: pending, with what it sends. */
export type NewOutboxRecord = Omit<OutboxRecord, 'status' | 'subject' | 'text'> & {
  subject: string;
  text: string;
};

/** What the delivery use case needs of the outbox (tests pass an in-memory one). */
export interface InviteOutbox {
  read(companyId: string, outboxId: string): Promise<OutboxRecord | undefined>;
  /**
   * pending -> sent, dropping the subject and text (kept no longer than needed); false when the record
   * was not pending (sent by another delivery, or gone).
   */
  markSent(companyId: string, outboxId: string, now: Date): Promise<boolean>;
}

/** Records are kept 30 days. */
const outboxTtlSeconds = 30 * 86_400;

function outboxItem(record: NewOutboxRecord, now: Date) {
  return inviteEmailEntity.item({
    ...inviteEmailKey(record.companyId, record.outboxId),
    type: 'inviteEmail',
    ...record,
    status: 'pending',
    ttl: epochSeconds(now) + outboxTtlSeconds,
  });
}

/** The transaction item that writes a new pending record (an invite, with its seat). */
export function outboxPut(record: NewOutboxRecord, now: Date) {
  return { Put: { TableName: tableName(), Item: outboxItem(record, now) } };
}

/** Writes a new pending record unless one with its id exists; false: it existed (nothing written). */
export function putOutboxRecord(record: NewOutboxRecord, now: Date): Promise<boolean> {
  return wroteIf(
    send(
      new PutCommand({
        TableName: tableName(),
        Item: outboxItem(record, now),
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    ),
  );
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
    const { kind, to, subject, text, name, role, invitedBy, inviteExpiresAt, status, createdAt } =
      inviteEmailEntity.parse(Item);
    return {
      outboxId,
      companyId,
      kind: kind ?? 'invite',
      to,
      ...(subject === undefined ? {} : { subject }),
      ...(text === undefined ? {} : { text }),
      ...(name === undefined ? {} : { name }),
      ...(role === undefined ? {} : { role }),
      ...(invitedBy === undefined ? {} : { invitedBy }),
      ...(inviteExpiresAt === undefined ? {} : { inviteExpiresAt }),
      status,
      createdAt,
    };
  },
  markSent(companyId, outboxId, now) {
    return wroteIf(
      send(
        new UpdateCommand({
          TableName: tableName(),
          Key: inviteEmailKey(companyId, outboxId),
          UpdateExpression: 'SET #status = :sent, sentAt = :now REMOVE #text',
          ConditionExpression: '#status = :pending',
          ExpressionAttributeNames: { '#status': 'status', '#text': 'text' },
          ExpressionAttributeValues: { ':sent': 'sent', ':pending': 'pending', ':now': now.toISOString() },
        }),
      ),
    );
  },
};
