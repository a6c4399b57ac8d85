// Storage of the Idempotency-Key records (functions/http/idempotency.ts has the rules): claiming a key,
// reading what the first request left, releasing it after a failure and keeping the first response.
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { tableName } from '../clients/dynamodb';
import { send, wroteIf } from './dynamodb';
import { idempotencyRecord, type IdempotencyRecord } from './entities/idempotency';
import type { ItemKey } from './keys';
import { epochSeconds } from './table';

export type { IdempotencyRecord };

// Every `key` below comes from idempotencyKey(companyId, scope, sha256 of the header) in ./keys.ts.

/**
 * Claims the key for a request with this body; false when another request has it (live, or done
 * within the window). Free: never used, past its window (TTL deletion lags), or a holder that crashed.
 */
export function claimIdempotencyKey(
  key: ItemKey,
  bodyHash: string,
  nowMs: number,
  holdMs: number,
  windowMs: number,
): Promise<boolean> {
  return wroteIf(
    send(
      new PutCommand({
        TableName: tableName(),
        Item: idempotencyRecord.item(key, {
          bodyHash,
          state: 'pending',
          holdUntilMs: nowMs + holdMs,
          expiresAtMs: nowMs + windowMs,
          ttl: epochSeconds(new Date(nowMs + windowMs)),
        }),
        ConditionExpression:
          'attribute_not_exists(pk) OR expiresAtMs < :now OR (#state = :pending AND holdUntilMs < :now)',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':now': nowMs, ':pending': 'pending' },
      }),
    ),
  );
}

/** The key's record, read strongly consistent, or undefined. */
export async function readIdempotencyRecord(key: ItemKey): Promise<IdempotencyRecord | undefined> {
  const { Item } = await send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
  return Item ? idempotencyRecord.parse(Item) : undefined;
}

/** Gives a pending key up (its request failed), so a corrected retry can claim it. */
export async function releaseIdempotencyKey(key: ItemKey): Promise<void> {
  await wroteIf(
    send(
      new DeleteCommand({
        TableName: tableName(),
        Key: key,
        ConditionExpression: '#state = :pending',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':pending': 'pending' },
      }),
    ),
  );
}

/** Keeps the first response, replayed to every copy of the request within the window. */
export async function storeIdempotentResponse(key: ItemKey, response: object): Promise<void> {
  await send(
    new UpdateCommand({
      TableName: tableName(),
      Key: key,
      UpdateExpression: 'SET #state = :done, #response = :response',
      ExpressionAttributeNames: { '#state': 'state', '#response': 'response' },
      // As JSON would carry it (no undefined values, which the document client refuses).
      ExpressionAttributeValues: { ':done': 'done', ':response': JSON.parse(JSON.stringify(response)) },
    }),
  );
}
