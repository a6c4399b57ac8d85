// Storage of connected mailboxes' credentials and placement tests (items in ./entities/mailboxes.ts,
// keys in ./keys.ts), and the transaction writes connecting, disconnecting and measuring a mailbox
// add to a workspace transaction (functions/store/workspace.ts commitWorkspaceWrites). Passwords are
// sealed here, before they reach an item, and opened here only for the function that logs in.
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { tableName } from '../clients/dynamodb';
import { openSecret, sealSecret } from '../clients/secret-box';
import { batchWriteAll, queryAll, send } from './dynamodb';
import {
  mailboxCredentialsEntity,
  placementTestEntity,
  type MailboxCredentialsItem,
  type Placement,
  type PlacementTestItem,
} from './entities/mailboxes';
import {
  companyKey,
  connectedDomainKey,
  connectedMailboxKey,
  domainReputationKey,
  mailboxCredentialsKey,
  mailboxReputationKey,
  placementInboxIndex,
  placementNetworkIndex,
  placementTestKey,
  placementTestPrefix,
  type ItemKey,
} from './keys';
import { epochSeconds } from './table';
import { getItem, type WorkspaceWrite } from './workspace';
import { connectedMailboxEntity } from './entities/workspace';
import type { StoredItem } from './entities/declare';

/** The two passwords of a mailbox, in the clear: only between a request (or an unseal) and a login. */
export interface MailboxPasswords {
  imap: string;
  smtp: string;
}

export type CredentialsFields = Omit<
  MailboxCredentialsItem,
  'pk' | 'sk' | 'gsi2pk' | 'gsi2sk' | 'type' | 'sealed'
>;

/** Seals the passwords and builds the transaction write of a new credentials item. */
export async function credentialsPut(
  fields: CredentialsFields,
  passwords: MailboxPasswords,
): Promise<WorkspaceWrite> {
  const sealed = await sealSecret(JSON.stringify(passwords), 'mailbox-credentials', fields.companyId);
  const item = mailboxCredentialsEntity.item({
    ...mailboxCredentialsKey(fields.companyId, fields.mailboxId),
    ...placementNetworkIndex(fields.companyId, fields.mailboxId),
    type: 'mailboxCredentials',
    ...fields,
    sealed,
  });
  return { Put: { TableName: tableName(), Item: item, ConditionExpression: 'attribute_not_exists(pk)' } };
}

/** Opens a credentials item's passwords (the functions that log in). */
export async function openPasswords(item: MailboxCredentialsItem): Promise<MailboxPasswords> {
  const opened: unknown = JSON.parse(await openSecret(item.sealed, 'mailbox-credentials', item.companyId));
  if (
    typeof opened !== 'object' ||
    opened === null ||
    typeof (opened as MailboxPasswords).imap !== 'string' ||
    typeof (opened as MailboxPasswords).smtp !== 'string'
  )
    throw new Error(`Sealed credentials of mailbox ${item.mailboxId} are not two passwords`);
  return opened as MailboxPasswords;
}

/** One mailbox's credentials item (strongly consistent), or undefined once disconnected. */
export const readCredentials = (companyId: string, mailboxId: string) =>
  getItem(mailboxCredentialsEntity, mailboxCredentialsKey(companyId, mailboxId), true);

/** Every mailbox of the placement network (all companies): the mailboxes with credentials. */
export async function readNetwork(): Promise<MailboxCredentialsItem[]> {
  const items = await queryAll({
    IndexName: 'gsi2',
    KeyConditionExpression: 'gsi2pk = :pk',
    ExpressionAttributeValues: { ':pk': placementNetworkIndex().gsi2pk },
  });
  return items.map((item) => mailboxCredentialsEntity.parse(item));
}

function deleteWrite(key: ItemKey): WorkspaceWrite {
  return { Delete: { TableName: tableName(), Key: { pk: key.pk, sk: key.sk } } };
}

/** A disconnected mailbox: its item, its credentials and its reputation blocks of these years. */
export function mailboxDeleteWrites(
  companyId: string,
  mailbox: { id: string; email: string },
  years: number[],
): WorkspaceWrite[] {
  return [
    deleteWrite(connectedMailboxKey(companyId, mailbox.email)),
    deleteWrite(mailboxCredentialsKey(companyId, mailbox.id)),
    ...years.map((year) => deleteWrite(mailboxReputationKey(companyId, mailbox.id, year))),
  ];
}

/** A domain left without mailboxes (its item), or rollup years it no longer has. */
export function domainDeleteWrites(
  companyId: string,
  domain: string,
  years: number[],
  item: boolean,
): WorkspaceWrite[] {
  return [
    ...(item ? [deleteWrite(connectedDomainKey(companyId, domain))] : []),
    ...years.map((year) => deleteWrite(domainReputationKey(companyId, domain, year))),
  ];
}

/**
 * Puts a built item in a transaction. `exists`: true only over an item already there (and, with
 * `id`, one with that id: a reconnected mailbox is another one), false only where none is.
 */
export function putWrite(item: StoredItem, exists?: boolean, id?: string): WorkspaceWrite {
  const condition =
    exists === undefined
      ? {}
      : exists && id !== undefined
        ? {
            ConditionExpression: 'attribute_exists(pk) AND #id = :id',
            ExpressionAttributeNames: { '#id': 'id' },
            ExpressionAttributeValues: { ':id': id },
          }
        : { ConditionExpression: exists ? 'attribute_exists(pk)' : 'attribute_not_exists(pk)' };
  return { Put: { TableName: tableName(), Item: item, ...condition } };
}

/** The credentials item's copy of the status, in the transaction that changes the mailbox's. */
export function credentialsStatusWrite(
  companyId: string,
  mailboxId: string,
  status: MailboxCredentialsItem['connectionStatus'],
): WorkspaceWrite {
  return {
    Update: {
      TableName: tableName(),
      Key: mailboxCredentialsKey(companyId, mailboxId),
      UpdateExpression: 'SET connectionStatus = :status',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':status': status },
    },
  };
}

export type NewPlacementTest = Omit<
  PlacementTestItem,
  'pk' | 'sk' | 'gsi1pk' | 'gsi1sk' | 'type' | 'ttl' | 'checkedAt'
>;

/** Tests are kept 60 days: long enough for any 7-day pool to be recomputed. */
const testLifetimeSeconds = 60 * 86_400;

/** Records sent tests (pending until a reading finds them). */
export async function putPlacementTests(tests: NewPlacementTest[], now: Date): Promise<void> {
  await batchWriteAll(
    tests.map((test) => ({
      PutRequest: {
        Item: placementTestEntity.item({
          ...placementTestKey(test.senderCompanyId, test.senderId, test.day, test.tag),
          ...placementInboxIndex(test.recipientId, test.day, test.tag),
          type: 'placementTest',
          ...test,
          ttl: epochSeconds(now) + testLifetimeSeconds,
        }),
      },
    })),
  );
}

/** The tests addressed to a mailbox on a day (from the receiver index). */
export async function readInboxTests(recipientId: string, day: string): Promise<PlacementTestItem[]> {
  const items = await queryAll({
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    ExpressionAttributeValues: { ':pk': placementInboxIndex(recipientId, day).gsi1pk },
  });
  return items.map((item) => placementTestEntity.parse(item));
}

/** A sender's tests of the days fromDay..toDay (YYYY-MM-DD, inclusive), strongly consistent. */
export async function readSenderTests(
  companyId: string,
  senderId: string,
  fromDay: string,
  toDay: string,
): Promise<PlacementTestItem[]> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    ExpressionAttributeValues: {
      ':pk': companyKey(companyId).pk,
      ':from': placementTestPrefix(senderId, fromDay),
      ':to': `${placementTestPrefix(senderId, toDay)}\uffff`,
    },
    ConsistentRead: true,
  });
  return items.map((item) => placementTestEntity.parse(item));
}

/** Where a reading found a test (or that it never arrived). */
export async function setPlacement(test: PlacementTestItem, placement: Placement, now: Date): Promise<void> {
  await send(
    new UpdateCommand({
      TableName: tableName(),
      Key: { pk: test.pk, sk: test.sk },
      UpdateExpression: 'SET placement = :placement, checkedAt = :now',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':placement': placement, ':now': now.toISOString() },
    }),
  );
}

/** The connected mailbox of this address in the company, if any (strongly consistent). */
export const readConnectedMailboxByEmail = (companyId: string, email: string) =>
  getItem(connectedMailboxEntity, connectedMailboxKey(companyId, email), true);
