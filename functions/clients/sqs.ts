// The SQS client: one per process, built on first use; queue URLs come from settings by queue name.
import './sdk-notice';
import { SQSClient } from '@aws-sdk/client-sqs';
import { settings } from '../settings';
import { queueUrlEnvName, type QueueName } from '../wiring';
import { recordCallsOf } from './call-recording';
import { traced } from './tracer';

let client: SQSClient | undefined;

export function sqs(): SQSClient {
  if (!client) {
    const s = settings();
    // the middleware stack resolved once per command class (see s3.ts), its middleware all added here
    client = traced(
      new SQSClient({ region: s.AWS_REGION, endpoint: s.AWS_ENDPOINT_URL_SQS, cacheMiddleware: true }),
    );
    recordCallsOf(client, 'sqs');
  }
  return client;
}

export function queueUrl(name: QueueName): string {
  return settings()[queueUrlEnvName(name)];
}

export function resetSqs(): void {
  client?.destroy();
  client = undefined;
}
