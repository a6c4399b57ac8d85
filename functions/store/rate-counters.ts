// Storage of the per-company, per-second request counters behind the rate limit.
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { tableName } from '../clients/dynamodb';
import { send, wroteIf } from './dynamodb';
import { rateCounterKey, type ItemKey } from './keys';

/**
 * Counts one request in the company's counter of that second, unless it already holds `limit`; false
 * then. One conditional update, so concurrent requests can never overshoot the limit.
 */
export function countRequest(companyId: string, epochSecond: number, limit: number): Promise<boolean> {
  return wroteIf(
    send(
      new UpdateCommand({
        TableName: tableName(),
        Key: rateCounterKey(companyId, epochSecond),
        UpdateExpression: 'ADD #count :one SET #ttl = :ttl',
        ConditionExpression: 'attribute_not_exists(#count) OR #count < :limit',
        ExpressionAttributeNames: { '#count': 'count', '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':one': 1, ':limit': limit, ':ttl': epochSecond + 120 },
      }),
    ),
  );
}

/** Counts one call in the counter at `key` unless it holds `limit`; false then. The item expires at `ttl`. */
export function countInWindow(key: ItemKey, limit: number, ttl: number): Promise<boolean> {
  return wroteIf(
    send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: 'ADD #count :one SET #ttl = :ttl',
        ConditionExpression: 'attribute_not_exists(#count) OR #count < :limit',
        ExpressionAttributeNames: { '#count': 'count', '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':one': 1, ':limit': limit, ':ttl': ttl },
      }),
    ),
  );
}
