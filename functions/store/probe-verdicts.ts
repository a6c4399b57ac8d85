// Storage of the probe verdict of each address (item PROBE#<email> / VERDICT, DynamoDB TTL): batched reads
// and writes, with DynamoDB's unprocessed keys and items retried a bounded number of times. What is worth
// keeping, and for how long, is the caller's decision (domain/probe/verdict-cache.ts).
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { dynamoDb, tableName } from '../clients/dynamodb';
import { batchGetAll, batchWriteAll } from './dynamodb';
import { probeVerdictKey } from './keys';
import { ttlAttribute } from './table';

export class ProbeVerdictItems {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  /** The stored verdicts of `emails` (lower-cased keys) whose TTL is after `nowSeconds`. */
  async get(emails: readonly string[], nowSeconds: number): Promise<Map<string, string>> {
    const unique = [...new Set(emails.map((e) => e.toLowerCase()))];
    const items = await batchGetAll(
      unique.map((e) => ({ ...probeVerdictKey(e) })),
      { doc: this.doc, table: this.table, concurrency: 1 },
    );
    const out = new Map<string, string>();
    for (const item of items) {
      // TTL deletion is lazy (up to days late): an expired item is a miss
      if (typeof item.email === 'string' && Number(item[ttlAttribute]) > nowSeconds)
        out.set(item.email, item.probe as string);
    }
    return out;
  }

  /** Stores each verdict under its address until `ttlSeconds` (epoch seconds). */
  async put(verdicts: Iterable<[string, string]>, ttlSeconds: number): Promise<void> {
    await batchWriteAll(
      [...verdicts].map(([email, probe]) => ({
        PutRequest: {
          Item: { ...probeVerdictKey(email), email: email.toLowerCase(), probe, [ttlAttribute]: ttlSeconds },
        },
      })),
      { doc: this.doc, table: this.table, concurrency: 1 },
    );
  }
}

/** The verdict items in the service's table, on the process's client. */
export function tableProbeVerdicts(): ProbeVerdictItems {
  return new ProbeVerdictItems(dynamoDb(), tableName());
}
