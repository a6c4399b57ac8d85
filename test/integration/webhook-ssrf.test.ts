// Callbacks to loopback are refused when ALLOW_PRIVATE_CALLBACKS is off (deployed stacks), whether the
// URL names the address or a host name that resolves to it; the receiver on 127.0.0.1 never hears a thing.
import { ChangeMessageVisibilityCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { sendWebhook } from '../../functions/handlers/send-webhook';
import { resetSettings } from '../../functions/settings';
import {
  sqsEvent,
  resetWebhookMocks,
  sqsRecord,
  startReceiver,
  webhookMessage,
  type FakeTable,
  type Receiver,
} from '../unit/webhooks/helpers';

const ddb = mockClient(DynamoDBDocumentClient);
const sqs = mockClient(SQSClient);
const saved = { ...process.env };
let receiver: Receiver;
let table: FakeTable;

beforeAll(async () => {
  receiver = await startReceiver([200]);
});

beforeEach(() => {
  delete process.env.ALLOW_PRIVATE_CALLBACKS;
  process.env.WEBHOOK_TIMEOUT_MS = '2000';
  resetSettings();
  table = resetWebhookMocks(ddb, sqs);
});

afterAll(async () => {
  await receiver.close();
  process.env = saved;
  resetSettings();
});

describe('callback address guard', () => {
  it.each([
    ['127.0.0.1', (port: number) => `http://127.0.0.1:${port}/hooks`],
    ['localhost', (port: number) => `http://localhost:${port}/hooks`],
    ['[::ffff:127.0.0.1]', (port: number) => `http://[::ffff:127.0.0.1]:${port}/hooks`],
  ])('refuses a callback to %s without retrying', async (_name, urlFor) => {
    const record = sqsRecord(webhookMessage(urlFor(receiver.port)), 1);
    expect(await sendWebhook(sqsEvent(record))).toEqual({ batchItemFailures: [] });
    expect(receiver.requests).toEqual([]);
    expect(sqs.commandCalls(ChangeMessageVisibilityCommand)).toEqual([]);
    expect(table.attempts).toEqual([
      {
        attempt: 1,
        at: expect.any(String),
        outcome: 'refused',
        error: expect.stringMatching(/^Callback address \S+ refused: private, loopback/),
        durationMs: expect.any(Number),
      },
    ]);
    expect(table.webhookStatus).toBe('failed');
  });

  it('refuses a scheme other than http and https', async () => {
    const record = sqsRecord(webhookMessage('file:///etc/passwd'), 1);
    expect(await sendWebhook(sqsEvent(record))).toEqual({ batchItemFailures: [] });
    expect(table.attempts).toEqual([
      {
        attempt: 1,
        at: expect.any(String),
        outcome: 'refused',
        error: 'Callback URL scheme file: is not allowed (only http and https)',
      },
    ]);
  });

  it('delivers to the same receiver once ALLOW_PRIVATE_CALLBACKS=true (local runtime)', async () => {
    process.env.ALLOW_PRIVATE_CALLBACKS = 'true';
    resetSettings();
    const record = sqsRecord(webhookMessage(`http://localhost:${receiver.port}/hooks`), 1);
    expect(await sendWebhook(sqsEvent(record))).toEqual({ batchItemFailures: [] });
    expect(receiver.requests).toHaveLength(1);
    expect(table.webhookStatus).toBe('delivered');
  });
});
