// Storage of the monthly validation usage per company: every validated address, single or bulk,
// counts once. Workspace data endpoints never call this.
import { GetCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { dynamoDb, tableName } from '../clients/dynamodb';
import { usageKey } from './keys';

/** `YYYY-MM` of a date, in UTC. */
function usageMonth(now: Date = new Date()): string {
  return now.toISOString().slice(0, 7);
}

/** The update that adds `count` validations to the company's month; usable inside a transaction. */
export function usageIncrement(companyId: string, count: number, now: Date = new Date()): UpdateCommandInput {
  return {
    TableName: tableName(),
    Key: usageKey(companyId, usageMonth(now)),
    UpdateExpression: 'ADD validations :count SET #type = :type',
    ExpressionAttributeNames: { '#type': 'type' },
    ExpressionAttributeValues: { ':count': count, ':type': 'usage' },
  };
}

/** Validations counted for the company in the month of `now`. */
export async function monthlyUsage(companyId: string, now: Date = new Date()): Promise<number> {
  const { Item } = await dynamoDb().send(
    new GetCommand({ TableName: tableName(), Key: usageKey(companyId, usageMonth(now)) }),
  );
  return Number(Item?.validations ?? 0);
}
