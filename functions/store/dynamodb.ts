// The storage layer's two DynamoDB idioms, each written once: reading every page of a Query, and a
// conditional write whose failed condition is an answer rather than an error.
import {
  paginateQuery,
  paginateScan,
  type QueryCommandInput,
  type ScanCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { dynamoDb, tableName } from '../clients/dynamodb';
import { isConditionFailure, isTransactionConditionFailure } from './conditions';

export type Item = Record<string, unknown>;

/** Sends any lib-dynamodb command (their union does not fit the client's overloads). */
export const send = <T = unknown>(command: object): Promise<T> =>
  (dynamoDb() as unknown as { send(c: object): Promise<T> }).send(command);

/** The pages of a Query on the table (lib-dynamodb's paginator), for callers that may stop early. */
export async function* queryPages(
  input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>,
): AsyncGenerator<Item[]> {
  for await (const page of paginateQuery({ client: dynamoDb() }, { TableName: tableName(), ...input }))
    yield page.Items ?? [];
}

/** The pages of a Scan of the table (lib-dynamodb's paginator). */
export async function* scanPages(
  input: Omit<ScanCommandInput, 'TableName' | 'ExclusiveStartKey'>,
): AsyncGenerator<Item[]> {
  for await (const page of paginateScan({ client: dynamoDb() }, { TableName: tableName(), ...input }))
    yield page.Items ?? [];
}

/** Every item a Query matches, page after page, on the table. */
export async function queryAll(
  input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>,
): Promise<Item[]> {
  const items: Item[] = [];
  for await (const page of queryPages(input)) items.push(...page);
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
