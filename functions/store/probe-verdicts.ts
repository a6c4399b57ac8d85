// Storage of the probe verdict of each address (item PROBE#<email> / VERDICT, DynamoDB TTL): batched reads
// and writes, with DynamoDB's unprocessed keys and items retried a bounded number of times. What is worth
// keeping, and for how long, is the caller's decision (domain/probe/verdict-cache.ts).
import {
  BatchGetCommand,
  BatchWriteCommand,
  type BatchGetCommandOutput,
  type BatchWriteCommandOutput,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { dynamoDb, tableName } from '../clients/dynamodb';
import { probeVerdictKey } from './keys';
import { ttlAttribute } from './table';

const batchGetSize = 100;
const batchWriteSize = 25;
const maxUnprocessedRounds = 8;

export class ProbeVerdictItems {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  /** The stored verdicts of `emails` (lower-cased keys) whose TTL is after `nowSeconds`. */
  async get(emails: readonly string[], nowSeconds: number): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    const unique = [...new Set(emails.map((e) => e.toLowerCase()))];
    for (let i = 0; i < unique.length; i += batchGetSize) {
      let keys: Record<string, unknown>[] | undefined = unique
        .slice(i, i + batchGetSize)
        .map((e) => ({ ...probeVerdictKey(e) }));
      for (let round = 0; keys && keys.length > 0 && round < maxUnprocessedRounds; round++) {
        const res: BatchGetCommandOutput = await this.doc.send(
          new BatchGetCommand({ RequestItems: { [this.table]: { Keys: keys } } }),
        );
        for (const item of res.Responses?.[this.table] ?? []) {
          // TTL deletion is lazy (up to days late): an expired item is a miss
          if (typeof item.email === 'string' && Number(item[ttlAttribute]) > nowSeconds)
            out.set(item.email, item.probe as string);
        }
        keys = res.UnprocessedKeys?.[this.table]?.Keys;
      }
    }
    return out;
  }

  /** Stores each verdict under its address until `ttlSeconds` (epoch seconds). */
  async put(verdicts: Iterable<[string, string]>, ttlSeconds: number): Promise<void> {
    const items = [...verdicts].map(([email, probe]) => ({
      ...probeVerdictKey(email),
      email: email.toLowerCase(),
      probe,
      [ttlAttribute]: ttlSeconds,
    }));
    for (let i = 0; i < items.length; i += batchWriteSize) {
      let requests: Record<string, unknown>[] | undefined = items
        .slice(i, i + batchWriteSize)
        .map((Item) => ({ PutRequest: { Item } }));
      for (let round = 0; requests && requests.length > 0 && round < maxUnprocessedRounds; round++) {
        const res: BatchWriteCommandOutput = await this.doc.send(
          new BatchWriteCommand({ RequestItems: { [this.table]: requests } }),
        );
        requests = res.UnprocessedItems?.[this.table] as Record<string, unknown>[] | undefined;
      }
    }
  }
}

/** The verdict items in the service's table, on the process's client. */
export function tableProbeVerdicts(): ProbeVerdictItems {
  return new ProbeVerdictItems(dynamoDb(), tableName());
}
