// The Idempotency-Key header on the routes that create work (docs/api.md): the same
// key and body within 24 hours answers with the first response and does nothing again; the same key
// with another body is 422. The first request holds the key while it runs, so two concurrent copies
// never both do the work; a request that fails releases the key, so fixing the body and retrying works.
import { systemClock, type Clock } from '../clock';
import { createHash } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { tableName } from '../clients/dynamodb';
import { ConflictError, UnprocessableError, ValidationError } from '../errors';
import { sortedJson } from '../json';
import { send, wroteIf } from '../store/dynamodb';
import { idempotencyKey } from '../store/keys';
import { epochSeconds } from '../store/table';
import type { ApiResponse } from '../middlewares/api';
import type { ApiRequest, Route } from './api-handler';

const idempotencyHeader = 'idempotency-key';
/** How long a key's first response is replayed. */
const idempotencyWindowSeconds = 24 * 3600;
/** A first request holding its key this long without finishing (a crash) gives the key up. */
const holdSeconds = 60;

export const idempotencyMismatchMessage = 'Idempotency-Key reused with a different body';
export const idempotencyInvalidMessage = 'Idempotency-Key must be 1 to 255 visible ASCII characters';
export const idempotencyInProgressMessage =
  'A request with this Idempotency-Key is still in progress; retry in a few seconds';

interface StoredKey {
  bodyHash: string;
  state: 'pending' | 'done';
  holdUntilMs: number;
  expiresAtMs: number;
  response?: ApiResponse;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Claims the key for this request; false when another request (live, or within 24 h) has it. */
function claim(keyOf: ReturnType<typeof idempotencyKey>, bodyHash: string, nowMs: number): Promise<boolean> {
  return wroteIf(
    send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keyOf,
          entity: 'idempotencyKey',
          bodyHash,
          state: 'pending',
          holdUntilMs: nowMs + holdSeconds * 1000,
          expiresAtMs: nowMs + idempotencyWindowSeconds * 1000,
          ttl: epochSeconds(new Date(nowMs)) + idempotencyWindowSeconds,
        },
        // Free: never used, past its window (TTL deletion lags), or a holder that crashed.
        ConditionExpression:
          'attribute_not_exists(pk) OR expiresAtMs < :now OR (#state = :pending AND holdUntilMs < :now)',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':now': nowMs, ':pending': 'pending' },
      }),
    ),
  );
}

/** Wraps a route that creates work so that it honours the Idempotency-Key header. */
export function idempotent(scope: string, route: Route, clock: Clock = systemClock): Route {
  return async (request: ApiRequest) => {
    const key = request.headers[idempotencyHeader];
    if (key === undefined) return route(request);
    if (!/^[\x21-\x7e]{1,255}$/.test(key)) throw new ValidationError(idempotencyInvalidMessage);
    const keyOf = idempotencyKey(request.principal.companyId, scope, sha256(key));
    const bodyHash = sha256(sortedJson(request.body ?? null));
    const nowMs = clock().getTime();

    if (!(await claim(keyOf, bodyHash, nowMs))) {
      const { Item } = await send<{ Item?: StoredKey }>(
        new GetCommand({ TableName: tableName(), Key: keyOf, ConsistentRead: true }),
      );
      // Released between the claim and the read: the first request failed; the client may retry.
      if (!Item) throw new ConflictError(idempotencyInProgressMessage);
      if (Item.bodyHash !== bodyHash) throw new UnprocessableError(idempotencyMismatchMessage);
      if (Item.state !== 'done' || !Item.response) throw new ConflictError(idempotencyInProgressMessage);
      request.log.info('idempotent replay', { scope });
      return Item.response;
    }

    let response: ApiResponse;
    try {
      response = await route(request);
    } catch (error) {
      await send(
        new DeleteCommand({
          TableName: tableName(),
          Key: keyOf,
          ConditionExpression: '#state = :pending',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ':pending': 'pending' },
        }),
      ).catch(() => undefined);
      throw error;
    }
    await send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keyOf,
        UpdateExpression: 'SET #state = :done, #response = :response',
        ExpressionAttributeNames: { '#state': 'state', '#response': 'response' },
        // As JSON would carry it (no undefined values, which the document client refuses).
        ExpressionAttributeValues: { ':done': 'done', ':response': JSON.parse(JSON.stringify(response)) },
      }),
    );
    return response;
  };
}
