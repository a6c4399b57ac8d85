// Builders shared by the webhook tests: queue messages, SQS records, a fake table behind the mocked
// DynamoDB client, and a real HTTP receiver on 127.0.0.1.
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ChangeMessageVisibilityCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AwsClientStub } from 'aws-sdk-client-mock';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import type { AttemptRecord } from '../../../functions/store/webhook-attempts';
import type { WebhookMessage } from '../../../functions/domain/webhooks/message';
import { companyKey, jobKey } from '../../../functions/store/keys';
import { storedCompany } from '../../helpers/items';

export const companyId = 'company-1';
export const jobId = '6f1c2a7e-3b7d-4a53-9a56-0f5b2d1e9c11';
/** A fixed whsec_ secret (24 bytes, base64) so failures are reproducible. */
export const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

export function webhookMessage(callbackUrl: string, overrides: Partial<WebhookMessage> = {}): WebhookMessage {
  return {
    callbackUrl,
    companyId,
    jobId,
    payload: {
      event: 'bulk_validation.completed',
      jobId,
      // Deliberately unsorted: the body must come out sorted.
      statistics: { some_risk: 1, safe: 7, block_bounce_risk: 2, do_not_mail_abuse: 0, dead_email: 0 },
      status: 'completed',
      totalEmails: 10,
    },
    webhookId: 'msg_2x8Yq4hJm0n5Kk3P',
    ...overrides,
  };
}

let sequence = 0;

export function sqsRecord(body: unknown, receiveCount = 1): SQSRecord {
  sequence += 1;
  return {
    messageId: `message-${sequence}`,
    receiptHandle: `receipt-${sequence}-${receiveCount}`,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    attributes: {
      ApproximateReceiveCount: String(receiveCount),
      SentTimestamp: String(Date.now()),
      SenderId: 'AIDAEXAMPLE',
      ApproximateFirstReceiveTimestamp: String(Date.now()),
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:mailvet-webhooks',
    awsRegion: 'us-east-1',
  };
}

export const sqsEvent = (...records: SQSRecord[]): SQSEvent => ({ Records: records });

/** The job item as the fake table holds it, and the attempts recorded on it. */
export interface FakeTable {
  attempts: AttemptRecord[];
  webhookStatus?: string;
  /** false: the job item does not exist, so updates fail their condition. */
  jobExists: boolean;
  companyExists: boolean;
}

/** Points the mocked DynamoDB client at an in-memory company and job item. */
function fakeTable(ddb: AwsClientStub<DynamoDBDocumentClient>, initial: Partial<FakeTable> = {}): FakeTable {
  const table: FakeTable = { attempts: [], jobExists: true, companyExists: true, ...initial };
  ddb.on(GetCommand, { Key: companyKey(companyId) }).callsFake(async () => ({
    Item: table.companyExists ? storedCompany(companyId, secret) : undefined,
  }));
  ddb.on(GetCommand, { Key: jobKey(companyId, jobId) }).callsFake(async () => ({
    Item: table.jobExists ? { ...jobKey(companyId, jobId), webhookStatus: table.webhookStatus } : undefined,
  }));
  ddb.on(UpdateCommand, { Key: jobKey(companyId, jobId) }).callsFake(async (input) => {
    if (!table.jobExists) {
      throw Object.assign(new Error('The conditional request failed'), {
        name: 'ConditionalCheckFailedException',
      });
    }
    const values = input.ExpressionAttributeValues ?? {};
    table.attempts.push(...(values[':attempt'] as AttemptRecord[]));
    table.webhookStatus = values[':status'] as string;
    return {};
  });
  return table;
}

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** What the receiver does with its n-th request (0-based): answer a status, or never answer. */
export type Reply = number | 'hang' | { status: number; headers: Record<string, string> };

export interface Receiver {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  close(): Promise<void>;
}

export async function startReceiver(replies: Reply[]): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const server: Server = createServer((request, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const index = requests.length;
      requests.push({
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const reply = replies[Math.min(index, replies.length - 1)] ?? 200;
      if (reply === 'hang') return;
      if (typeof reply === 'number') response.writeHead(reply).end('{"ok":true}');
      else response.writeHead(reply.status, reply.headers).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hooks/mailvet`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Resets both mocked clients for the next test: SQS accepts visibility changes; DynamoDB is a new fake table. */
export function resetWebhookMocks(
  ddb: AwsClientStub<DynamoDBDocumentClient>,
  sqs: AwsClientStub<SQSClient>,
  initial: Partial<FakeTable> = {},
): FakeTable {
  ddb.reset();
  sqs.reset();
  sqs.on(ChangeMessageVisibilityCommand).resolves({});
  return fakeTable(ddb, initial);
}
