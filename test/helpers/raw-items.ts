// Items exactly as DynamoDB holds them, for tests that check what was stored: production reads parse
// every item through its entity, so a test that wants the raw attributes reads them here.
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoDb, tableName } from '../../functions/clients/dynamodb';
import type { ItemKey } from '../../functions/store/keys';

/** The stored item at `key` (strongly consistent), or undefined. */
export async function readRawItem(key: ItemKey): Promise<Record<string, unknown> | undefined> {
  const { Item } = await dynamoDb().send(
    new GetCommand({ TableName: tableName(), Key: { pk: key.pk, sk: key.sk }, ConsistentRead: true }),
  );
  return Item;
}

/** Writes an item as given, past every entity: a malformed or foreign item for a test to read. */
export async function putRawItem(item: ItemKey & Record<string, unknown>): Promise<void> {
  await dynamoDb().send(new PutCommand({ TableName: tableName(), Item: item }));
}
