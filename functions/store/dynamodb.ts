// The storage layer's DynamoDB idioms, each written once: reading every page of a Query, a conditional
// write whose failed condition is an answer rather than an error, and batched reads and writes of any
// size with DynamoDB's unprocessed keys and items sent again.
import {
  BatchGetCommand,
  BatchWriteCommand,
  type BatchGetCommandOutput,
  type BatchWriteCommandOutput,
  type DynamoDBDocumentClient,
  GetCommand,
  type GetCommandOutput,
  UpdateCommand,
  type UpdateCommandOutput,
  QueryCommand,
  type QueryCommandInput,
  type QueryCommandOutput,
  ScanCommand,
  type ScanCommandInput,
  type ScanCommandOutput,
} from '@aws-sdk/lib-dynamodb';
import { dynamoDb, tableName } from '../clients/dynamodb';
import { eachLimited } from '../concurrency';
import { ServiceUnavailableError } from '../errors';
import { countMetric } from '../metrics';
import { isConditionFailure, isTransactionConditionFailure, isTransactionConflict } from './conditions';

export type Item = Record<string, unknown>;

/** Tries of a plain write that keeps meeting a transaction on its item. */
const conflictAttempts = 5;

/** Where one command goes and how often a transaction conflict is tried again. */
export interface SendOptions {
  attempts?: number;
  /** The process's client unless a store was built on another (tests, benchmarks). */
  doc?: DynamoDBDocumentClient;
}

/**
 * The one path of every DynamoDB command (any lib-dynamodb command: their union does not fit the
 * client's overloads). A transaction conflict had no effect and the SDK does not retry it, so it is
 * sent again here, up to `attempts` times. Throttling that outlived the SDK's retries becomes a
 * ServiceUnavailableError (503 with Retry-After). Each command is counted (commandCounts).
 */
export function send(command: GetCommand, options?: number | SendOptions): Promise<GetCommandOutput>;
export function send(command: QueryCommand, options?: number | SendOptions): Promise<QueryCommandOutput>;
export function send(command: UpdateCommand, options?: number | SendOptions): Promise<UpdateCommandOutput>;
export function send<T = unknown>(command: object, options?: number | SendOptions): Promise<T>;
export async function send<T>(command: object, options: number | SendOptions = {}): Promise<T> {
  const { attempts = conflictAttempts, doc } = typeof options === 'number' ? { attempts: options } : options;
  const client = (doc ?? dynamoDb()) as unknown as { send(c: object): Promise<T> };
  countCommand(command);
  for (let attempt = 0; ; attempt++) {
    try {
      return await client.send(command);
    } catch (error) {
      // the cause keeps the SDK's error name for the log line of the 503
      if (isDynamoThrottling(error)) throw Object.assign(new ServiceUnavailableError(), { cause: error });
      const conflict =
        (error as Error).name === 'TransactionConflictException' || isTransactionConflict(error);
      if (!conflict || attempt + 1 >= attempts) throw error;
      await backoff(attempt);
    }
  }
}

const throttlingNames = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
]);

/** DynamoDB saying "too busy" (the SDK has already retried these with its own backoff). */
function isDynamoThrottling(error: unknown): boolean {
  return error instanceof Error && throttlingNames.has(error.name);
}

/** Commands sent since the last flush, by command name (a Map increment: nothing on the hot path). */
const commandCounts = new Map<string, number>();
let commandsSinceFlush = 0;
/** Counts are written as metrics every this many commands, and by flushCommandMetrics. */
const flushEvery = 1000;

function countCommand(command: object): void {
  const name = command.constructor.name;
  commandCounts.set(name, (commandCounts.get(name) ?? 0) + 1);
  if (++commandsSinceFlush >= flushEvery) flushCommandMetrics();
}

/** The commands counted since the last flush (tests, and the flush below). */
export function pendingCommandCounts(): ReadonlyMap<string, number> {
  return commandCounts;
}

/** Writes the pending counts as `DynamoDbCommands` metrics, one per command name, and starts over. */
export function flushCommandMetrics(): void {
  for (const [name, count] of commandCounts) countMetric('DynamoDbCommands', count, { Command: name });
  commandCounts.clear();
  commandsSinceFlush = 0;
}

/** The pages of a Query on the table, for callers that may stop early. */
export async function* queryPages(
  input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>,
): AsyncGenerator<Item[]> {
  let start: Item | undefined;
  do {
    const page: QueryCommandOutput = await send(
      new QueryCommand({ TableName: tableName(), ...input, ExclusiveStartKey: start }),
    );
    yield page.Items ?? [];
    start = page.LastEvaluatedKey;
  } while (start);
}

/** The pages of a Scan of the table. */
export async function* scanPages(
  input: Omit<ScanCommandInput, 'TableName' | 'ExclusiveStartKey'>,
): AsyncGenerator<Item[]> {
  let start: Item | undefined;
  do {
    const page: ScanCommandOutput = await send(
      new ScanCommand({ TableName: tableName(), ...input, ExclusiveStartKey: start }),
    );
    yield page.Items ?? [];
    start = page.LastEvaluatedKey;
  } while (start);
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

/** Waits before round `attempt` + 1 of a retry: 25 ms doubling to 1 s, with jitter. */
export function backoff(attempt: number): Promise<void> {
  const ms = Math.min(1000, 25 * 2 ** attempt) * (0.5 + Math.random() / 2);
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Rounds of a batch request whose unprocessed part keeps coming back before it is an error. */
const maxBatchRounds = 10;

/** Where a batch request goes: the service's table on the process's client unless a test says otherwise. */
export interface BatchTarget {
  doc?: DynamoDBDocumentClient;
  table?: string;
  /** Batch requests in flight at once (default 8). */
  concurrency?: number;
}

/** `values` cut into consecutive groups of at most `size`. */
export function slices<T>(values: readonly T[], size: number): T[][] {
  const groups: T[][] = [];
  for (let i = 0; i < values.length; i += size) groups.push(values.slice(i, i + size));
  return groups;
}

/**
 * The items of any number of keys: BatchGetItem, 100 keys a request, unprocessed keys sent again with
 * backoff (an error after 10 rounds). Missing items are simply absent; the order is not the keys'.
 */
export async function batchGetAll(
  keys: Item[],
  options: BatchTarget & {
    consistent?: boolean;
    projection?: string;
    /** ExpressionAttributeNames of the projection. */
    names?: Record<string, string>;
  } = {},
): Promise<Item[]> {
  const doc = options.doc ?? dynamoDb();
  const table = options.table ?? tableName();
  const out: Item[] = [];
  await eachLimited(slices(keys, 100), options.concurrency ?? 8, async (group) => {
    let pending = group;
    for (let round = 0; pending.length > 0; round++) {
      if (round >= maxBatchRounds) throw new Error('BatchGetItem kept returning unprocessed keys');
      if (round > 0) await backoff(round);
      const result: BatchGetCommandOutput = await send(
        new BatchGetCommand({
          RequestItems: {
            [table]: {
              Keys: pending,
              ...(options.consistent ? { ConsistentRead: true } : {}),
              ...(options.projection ? { ProjectionExpression: options.projection } : {}),
              ...(options.names ? { ExpressionAttributeNames: options.names } : {}),
            },
          },
        }),
        { doc },
      );
      out.push(...(result.Responses?.[table] ?? []));
      pending = (result.UnprocessedKeys?.[table]?.Keys ?? []) as Item[];
    }
  });
  return out;
}

/** One request of a BatchWriteItem. */
export type BatchWrite = { PutRequest: { Item: Item } } | { DeleteRequest: { Key: Item } };

/**
 * Any number of puts and deletes: BatchWriteItem, `groupSize` (at most 25, the default) a request,
 * unprocessed items sent again with backoff (an error after 10 rounds).
 */
export async function batchWriteAll(
  requests: BatchWrite[],
  options: BatchTarget & { groupSize?: number } = {},
): Promise<void> {
  const doc = options.doc ?? dynamoDb();
  const table = options.table ?? tableName();
  await eachLimited(slices(requests, options.groupSize ?? 25), options.concurrency ?? 8, async (group) => {
    let pending = group;
    for (let round = 0; pending.length > 0; round++) {
      if (round >= maxBatchRounds) throw new Error('BatchWriteItem kept returning unprocessed items');
      if (round > 0) await backoff(round);
      const result: BatchWriteCommandOutput = await send(
        new BatchWriteCommand({ RequestItems: { [table]: pending } }),
        { doc },
      );
      pending = (result.UnprocessedItems?.[table] ?? []) as BatchWrite[];
    }
  });
}
