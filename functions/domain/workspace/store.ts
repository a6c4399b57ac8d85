// Reading and writing workspace items: prefix queries of a company's partition, batched puts, and the
// conversions between stored items and rows.
import { BatchGetCommand, BatchWriteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoDb, tableName } from '../../clients/dynamodb';
import { companyKey } from '../../store/keys';
import type { MailboxRow, SafetyNetMailboxRow, SequenceRow, UserRow } from './model';
import { queryAll } from '../../store/dynamodb';

export type Item = Record<string, unknown>;

/** Every item of the company whose sort key starts with the prefix (all pages). */
export async function queryPrefix(companyId: string, prefix: string, consistent = true): Promise<Item[]> {
  return queryAll({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
    ExpressionAttributeValues: { ':pk': companyKey(companyId).pk, ':sk': prefix },
    ConsistentRead: consistent,
  });
}

/** The one item of a gsi1 key (an id lookup), or undefined. */
export async function getByIndex(index: { gsi1pk: string; gsi1sk: string }): Promise<Item | undefined> {
  const page = await dynamoDb().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk = :sk',
      ExpressionAttributeValues: { ':pk': index.gsi1pk, ':sk': index.gsi1sk },
    }),
  );
  return page.Items?.[0];
}

/** BatchGet of any number of keys, 100 per request, several requests at once; unprocessed keys retried. */
export async function batchGet(keys: { pk: string; sk: string }[], concurrency = 8): Promise<Item[]> {
  const groups: { pk: string; sk: string }[][] = [];
  for (let i = 0; i < keys.length; i += 100) groups.push(keys.slice(i, i + 100));
  const out: Item[] = [];
  let next = 0;
  const worker = async () => {
    while (next < groups.length) {
      let pending: Item[] = groups[next++]!;
      for (let attempt = 0; pending.length > 0; attempt++) {
        const result = await dynamoDb().send(
          new BatchGetCommand({ RequestItems: { [tableName()]: { Keys: pending } } }),
        );
        out.push(...(result.Responses?.[tableName()] ?? []));
        pending = (result.UnprocessedKeys?.[tableName()]?.Keys ?? []) as Item[];
        if (pending.length > 0) await backoff(attempt);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, groups.length) }, worker));
  return out;
}

/** BatchWrite puts and deletes, 25 per request, several requests at once; unprocessed items retried. */
export async function batchWrite(
  requests: ({ PutRequest: { Item: Item } } | { DeleteRequest: { Key: Item } })[],
  concurrency = 8,
): Promise<void> {
  const groups: (typeof requests)[] = [];
  for (let i = 0; i < requests.length; i += 25) groups.push(requests.slice(i, i + 25));
  let next = 0;
  const worker = async () => {
    while (next < groups.length) {
      let pending = groups[next++]!;
      for (let attempt = 0; pending.length > 0; attempt++) {
        const result = await dynamoDb().send(
          new BatchWriteCommand({ RequestItems: { [tableName()]: pending } }),
        );
        pending = (result.UnprocessedItems?.[tableName()] ?? []) as typeof pending;
        if (pending.length > 0) await backoff(attempt);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, groups.length) }, worker));
}

export function backoff(attempt: number): Promise<void> {
  const ms = Math.min(1000, 25 * 2 ** attempt) * (0.5 + Math.random() / 2);
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function mailboxRowOf(item: Item): MailboxRow {
  const owner = item.owner as MailboxRow['owner'];
  return {
    id: String(item.id),
    email: String(item.email),
    domain: String(item.domain),
    provider: String(item.provider),
    connectionStatus: item.connectionStatus as MailboxRow['connectionStatus'],
    connectedAt: String(item.connectedAt),
    statusUpdatedAt: String(item.statusUpdatedAt),
    owner: { email: owner.email, firstName: owner.firstName, lastName: owner.lastName },
  };
}

/** A user item as a row; accounts-module items carry `userId`, workspace ones too. */
export function userRowOf(item: Item, mailboxes: UserRow['mailboxes']): UserRow {
  const active = item.status !== 'invited';
  return {
    email: String(item.email).toLowerCase(),
    id: active ? String(item.userId ?? item.id) : null,
    name: String(item.name ?? ''),
    role: item.role === 'admin' ? 'admin' : 'member',
    status: active ? 'active' : 'invited',
    createdAt: active ? String(item.createdAt) : null,
    inviteExpiresAt: active ? null : String(item.inviteExpiresAt),
    mailboxes,
  };
}

export function safetyNetMailboxRowOf(item: Item): SafetyNetMailboxRow {
  return {
    id: String(item.id),
    email: String(item.email),
    activated: item.activated === true,
    integrations: (item.integrations as SafetyNetMailboxRow['integrations']).map((i) => ({
      service: i.service,
      externalId: i.externalId ?? null,
    })),
  };
}

export function sequenceRowOf(item: Item): SequenceRow {
  const owner = item.owner as SequenceRow['owner'];
  return {
    id: String(item.id),
    name: String(item.name),
    crmSequenceId: String(item.crmSequenceId),
    service: item.service as SequenceRow['service'],
    activated: item.activated === true,
    owner: { email: owner.email, firstName: owner.firstName, lastName: owner.lastName },
  };
}

/** Each user's connected mailboxes, by lower-cased owner email, sorted by mailbox email. */
export function mailboxesByOwner(mailboxes: MailboxRow[]): Map<string, UserRow['mailboxes']> {
  const out = new Map<string, UserRow['mailboxes']>();
  for (const m of [...mailboxes].sort((a, b) => (a.email < b.email ? -1 : a.email > b.email ? 1 : 0))) {
    const owner = m.owner.email.toLowerCase();
    const list = out.get(owner) ?? [];
    list.push({ email: m.email, id: m.id });
    out.set(owner, list);
  }
  return out;
}
