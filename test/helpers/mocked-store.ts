// The DynamoDB document client mocked for handler tests: the API key's read, and a store of items by
// pk|sk that reads back what the handler wrote.
import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  TransactWriteCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import type { AwsClientStub } from 'aws-sdk-client-mock';
import { hashApiKey } from '../../functions/domain/accounts/secrets';
import { apiKeyKey, validationRequestKey } from '../../functions/store/keys';
import { storedApiKey } from './items';

type DocumentClientMock = AwsClientStub<DynamoDBDocumentClient>;
type StoredItem = Record<string, unknown> & { pk: string; sk: string };
export type Principal = { companyId: string; userId: string; userEmail: string; keyId: string };

/** The id of an item in a mocked store. */
export const itemId = (key: { pk: string; sk: string }) => `${key.pk}|${key.sk}`;

/** Answers the read of this raw API key with its stored item; more specific than any other GetCommand mock. */
export function mockApiKeyRead(ddb: DocumentClientMock, rawKey: string, principal: Principal): void {
  const keyHash = hashApiKey(rawKey);
  ddb.on(GetCommand, { Key: apiKeyKey(keyHash) }).resolves({ Item: storedApiKey(keyHash, principal) });
}

/**
 * Resets `ddb` to a store of items by pk|sk (see `itemId`): gets read what puts and transactions wrote,
 * updates and deletes are accepted and change nothing. A store, not a DynamoDB: conditions are DynamoDB's
 * to evaluate, so races run against DynamoDB Local in the integration tests, not here.
 */
export function mockItemStore(
  ddb: DocumentClientMock,
  rawKey: string,
  principal: Principal,
): Map<string, Record<string, unknown>> {
  const items = new Map<string, Record<string, unknown>>();
  ddb.reset();
  ddb
    .on(GetCommand)
    .callsFake(async (input: { Key: StoredItem }) => ({ Item: items.get(itemId(input.Key)) }));
  mockApiKeyRead(ddb, rawKey, principal);
  ddb.on(UpdateCommand).resolves({});
  ddb.on(PutCommand).callsFake(async (input: { Item: StoredItem }) => {
    items.set(itemId(input.Item), input.Item);
    return {};
  });
  ddb
    .on(TransactWriteCommand)
    .callsFake(async (input: { TransactItems: { Put?: { Item: StoredItem } }[] }) => {
      for (const item of input.TransactItems) if (item.Put) items.set(itemId(item.Put.Item), item.Put.Item);
      return {};
    });
  ddb.on(DeleteCommand).resolves({});
  return items;
}

/** Answers the read of a company's stored single-email validation request: a fresh one, `item` on top. */
export function mockStoredValidationRequest(
  ddb: DocumentClientMock,
  ids: { companyId: string; requestId: string },
  item: Record<string, unknown>,
): void {
  const key = validationRequestKey(ids.companyId, ids.requestId);
  ddb.on(GetCommand, { Key: key }).resolves({
    Item: {
      ...key,
      type: 'validation_request',
      ...ids,
      createdAt: new Date().toISOString(),
      ttl: 1,
      ...item,
    },
  });
}
