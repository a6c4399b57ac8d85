// The storage layer's two DynamoDB idioms, each written once: reading every page of a Query, and a
// conditional write whose failed condition is an answer rather than an error.
import { paginateQuery, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { dynamoDb, tableName } from '../clients/dynamodb';
import { isConditionFailure, isTransactionConditionFailure } from './conditions';

export type Item = Record<string, unknown>;

/** Sends any lib-dynamodb command (their union does not fit the client's overloads). */
export const send = <T = unknown>(command: object): Promise<T> =>
  (dynamoDb() as unknown as { send(c: object): Promise<T> }).send(command);

/** Every item a Query matches, page after page (lib-dynamodb's paginator), on the table. */
export async function queryAll(
  input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>,
): Promise<Item[]> {
  const items: Item[] = [];
  for await (const page of paginateQuery({ client: dynamoDb() }, { TableName: tableName(), ...input }))
    items.push(...(page.Items ?? []));
  return items;
}

/**
 * The result of a conditional write (or transaction), or undefined when a condition did not hold.
 * Any other error is thrown.
 */
export async function ifConditionHolds<T>(write: Promise<T>): Promise<T | undefined> {
  try {
    return await write;
  } catch (error) {
    if (isConditionFailure(error) || isTransactionConditionFailure(error)) return undefined;
    throw error;
  }
}

/** true when the conditional write happened, false when its condition did not hold. */
export async function wroteIf(write: Promise<unknown>): Promise<boolean> {
  return (await ifConditionHolds(write.then(() => true))) ?? false;
}
