// The DynamoDB document client: one per process (Lambda container or local runtime), built on first use.
import './sdk-notice';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { settings } from '../settings';
import { recordCallsOf } from './call-recording';

let client: DynamoDBDocumentClient | undefined;

export function dynamoDb(): DynamoDBDocumentClient {
  if (!client) {
    const s = settings();
    const base = new DynamoDBClient({
      region: s.AWS_REGION,
      endpoint: s.AWS_ENDPOINT_URL_DYNAMODB,
      maxAttempts: 4,
    });
    recordCallsOf(base, 'dynamodb');
    client = DynamoDBDocumentClient.from(base, {
      marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
    });
  }
  return client;
}

export function tableName(): string {
  return settings().TABLE_NAME;
}

/** Forget the client (tests that point the process at another endpoint). */
export function resetDynamoDb(): void {
  client?.destroy();
  client = undefined;
}
