// Per-company requests-per-second limit over every API route. One counter item per company and
// second, incremented with a condition, so concurrent requests can never overshoot the limit.
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoDb, tableName } from '../clients/dynamodb';
import { RateLimitError } from '../errors';
import { wroteIf } from '../store/dynamodb';
import { rateCounterKey } from '../store/keys';
import { epochSeconds } from '../store/table';

/** Counts one request for the company in the current second; throws RateLimitError past the limit. */
export async function consumeRateLimit(
  companyId: string,
  limitPerSecond: number,
  now = new Date(),
): Promise<void> {
  const second = epochSeconds(now);
  const counted = await wroteIf(
    dynamoDb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: rateCounterKey(companyId, second),
        UpdateExpression: 'ADD #count :one SET #ttl = :ttl',
        ConditionExpression: 'attribute_not_exists(#count) OR #count < :limit',
        ExpressionAttributeNames: { '#count': 'count', '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':one': 1, ':limit': limitPerSecond, ':ttl': second + 120 },
      }),
    ),
  );
  if (!counted) throw new RateLimitError();
}
