// DynamoDB Local for code that runs in this process (not through the local runtime): the table made, the
// process's clients pointed at it, settings read again.
import { resetDynamoDb } from '../../functions/clients/dynamodb';
import { resetSettings } from '../../functions/settings';
import { ensureTable, startDynamoDbLocal, type DynamoDbLocal } from '../../local/dynamodb';

/**
 * Starts DynamoDB Local with `table` and points this process at it, with `env` set on top (credentials,
 * limits). The caller stops the returned server.
 */
export async function startProcessTable(table: string, env: Record<string, string>): Promise<DynamoDbLocal> {
  const dynamo = await startDynamoDbLocal();
  await ensureTable(dynamo.endpoint, table);
  Object.assign(process.env, { AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint, TABLE_NAME: table, ...env });
  resetSettings();
  resetDynamoDb();
  return dynamo;
}
