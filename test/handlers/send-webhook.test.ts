// The sendWebhook adapter without a network: the POST is stubbed, SQS and DynamoDB are mocked.
import { ChangeMessageVisibilityCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import type { AttemptResult } from '../../functions/domain/webhooks/retry-policy';
import { resetSettings } from '../../functions/settings';
import { companyKey, jobKey } from '../../functions/store/keys';
import { lambdaContext } from '../../local/events';
import {
  companyId,
  jobId,
  sqsEvent,
  resetWebhookMocks,
  sqsRecord,
  webhookMessage,
  type FakeTable,
} from '../unit/webhooks/helpers';
import { storedCompany } from '../helpers/items';

// esbuild (our Jest transform) does not hoist jest.mock above imports: the modules that must see the
// mock are required after it.
jest.mock('../../functions/domain/webhooks/post', () => ({ postWebhook: jest.fn() }));
/* eslint-disable @typescript-eslint/no-require-imports */
const { postWebhook } =
  require('../../functions/domain/webhooks/post') as typeof import('../../functions/domain/webhooks/post');
const { handler, sendWebhook } =
  require('../../functions/handlers/send-webhook') as typeof import('../../functions/handlers/send-webhook');
/* eslint-enable @typescript-eslint/no-require-imports */
const post = jest.mocked(postWebhook);
const answer = (result: AttemptResult) => post.mockResolvedValue(result);

const ddb = mockClient(DynamoDBDocumentClient);
const sqs = mockClient(SQSClient);
const url = 'https://hooks.example.com/mailvet';
let table: FakeTable;

beforeEach(() => {
  resetSettings();
  post.mockReset();
  table = resetWebhookMocks(ddb, sqs);
});

describe('sendWebhook handler', () => {
  it('acknowledges a body that is not JSON without sending or recording anything', async () => {
    expect(await sendWebhook(sqsEvent(sqsRecord('{not json')))).toEqual({ batchItemFailures: [] });
    expect(post).not.toHaveBeenCalled();
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(0);
  });

  it('records a malformed message on the job it names, then acknowledges it', async () => {
    const { payload: _payload, ...rest } = webhookMessage(url);
    expect(await sendWebhook(sqsEvent(sqsRecord(rest)))).toEqual({ batchItemFailures: [] });
    expect(post).not.toHaveBeenCalled();
    expect(table.attempts).toEqual([
      {
        attempt: 1,
        at: expect.any(String),
        outcome: 'failed',
        error: 'Malformed webhook message: invalid payload',
      },
    ]);
  });

  it('sends the message through the SSRF-guarded POST with the timeout setting', async () => {
    answer({ kind: 'response', statusCode: 200 });
    await sendWebhook(sqsEvent(sqsRecord(webhookMessage(url))));
    expect(post).toHaveBeenCalledWith({
      url: new URL(url),
      headers: expect.objectContaining({ 'webhook-id': 'msg_2x8Yq4hJm0n5Kk3P' }),
      body: expect.stringMatching(/^\{"event":"bulk_validation\.completed","jobId":/),
      timeoutMs: 10000,
      allowPrivate: false,
    });
  });

  it('schedules the retry through ChangeMessageVisibility with the backoff for that attempt', async () => {
    process.env.WEBHOOK_RETRY_BASE_SECONDS = '10';
    resetSettings();
    try {
      answer({ kind: 'response', statusCode: 503 });
      const record = sqsRecord(webhookMessage(url), 3);
      expect(await sendWebhook(sqsEvent(record))).toEqual({
        batchItemFailures: [{ itemIdentifier: record.messageId }],
      });
      const [call] = sqs.commandCalls(ChangeMessageVisibilityCommand);
      expect(call?.args[0].input).toMatchObject({ ReceiptHandle: record.receiptHandle });
      expect(call?.args[0].input.VisibilityTimeout).toBeGreaterThanOrEqual(32);
      expect(call?.args[0].input.VisibilityTimeout).toBeLessThanOrEqual(48);
      expect(table.attempts[0]).toMatchObject({ attempt: 3, outcome: 'retry', statusCode: 503 });
    } finally {
      delete process.env.WEBHOOK_RETRY_BASE_SECONDS;
    }
  });

  it('still reports the retry when ChangeMessageVisibility fails (the queue timeout brings it back)', async () => {
    sqs.on(ChangeMessageVisibilityCommand).rejects(new Error('throttled'));
    answer({ kind: 'network', error: 'Connection error: ECONNRESET' });
    const record = sqsRecord(webhookMessage(url), 1);
    expect(await sendWebhook(sqsEvent(record))).toEqual({
      batchItemFailures: [{ itemIdentifier: record.messageId }],
    });
  });

  it('counts a record without ApproximateReceiveCount as the first attempt', async () => {
    answer({ kind: 'response', statusCode: 500 });
    const record = sqsRecord(webhookMessage(url));
    delete (record.attributes as Partial<typeof record.attributes>).ApproximateReceiveCount;
    expect((await sendWebhook(sqsEvent(record))).batchItemFailures).toHaveLength(1);
    expect(table.attempts[0]).toMatchObject({ attempt: 1, outcome: 'retry' });
  });

  it('delivers even when the job item is gone, recording nothing', async () => {
    table.jobExists = false;
    answer({ kind: 'response', statusCode: 200 });
    expect(await sendWebhook(sqsEvent(sqsRecord(webhookMessage(url))))).toEqual({ batchItemFailures: [] });
    expect(post).toHaveBeenCalledTimes(1);
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(1);
  });

  it('acknowledges a 2xx even when recording it fails, so the receiver never gets it twice', async () => {
    answer({ kind: 'response', statusCode: 200 });
    ddb
      .on(UpdateCommand, { Key: jobKey(companyId, jobId) })
      .rejects(new Error('ProvisionedThroughputExceeded'));
    expect(await sendWebhook(sqsEvent(sqsRecord(webhookMessage(url))))).toEqual({ batchItemFailures: [] });
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(1);
    expect(table.attempts).toEqual([]);
  });

  it('fails the webhook without sending when the company no longer exists', async () => {
    table.companyExists = false;
    expect(await sendWebhook(sqsEvent(sqsRecord(webhookMessage(url))))).toEqual({ batchItemFailures: [] });
    expect(post).not.toHaveBeenCalled();
    expect(table.attempts[0]).toMatchObject({ outcome: 'failed', error: 'The job company no longer exists' });
  });

  it('fails the webhook without sending when the company secret cannot sign', async () => {
    ddb
      .on(GetCommand, { Key: companyKey(companyId) })
      .resolves({ Item: storedCompany(companyId, 'whsec_%%%') });
    expect(await sendWebhook(sqsEvent(sqsRecord(webhookMessage(url))))).toEqual({ batchItemFailures: [] });
    expect(post).not.toHaveBeenCalled();
    expect(table.attempts[0]).toMatchObject({
      outcome: 'failed',
      error: 'The company webhook secret is invalid',
    });
  });

  it('lets SQS redeliver when the company lookup itself fails', async () => {
    ddb.on(GetCommand, { Key: companyKey(companyId) }).rejects(new Error('ServiceUnavailable'));
    const record = sqsRecord(webhookMessage(url));
    expect(await sendWebhook(sqsEvent(record))).toEqual({
      batchItemFailures: [{ itemIdentifier: record.messageId }],
    });
    expect(post).not.toHaveBeenCalled();
    expect(sqs.commandCalls(ChangeMessageVisibilityCommand)).toHaveLength(0);
  });

  it('drops a duplicate of a webhook that already failed for good', async () => {
    table.webhookStatus = 'failed';
    expect(await sendWebhook(sqsEvent(sqsRecord(webhookMessage(url), 2)))).toEqual({ batchItemFailures: [] });
    expect(post).not.toHaveBeenCalled();
  });

  it('records a refused address as refused and does not retry it', async () => {
    answer({ kind: 'refused', error: 'Callback address 10.0.0.8 refused: private' });
    expect(await sendWebhook(sqsEvent(sqsRecord(webhookMessage(url))))).toEqual({ batchItemFailures: [] });
    expect(table.attempts[0]).toMatchObject({
      outcome: 'refused',
      error: expect.stringContaining('10.0.0.8'),
    });
    expect(table.webhookStatus).toBe('failed');
  });

  it('is exported middy-wrapped for Lambda', async () => {
    answer({ kind: 'response', statusCode: 202 });
    const result = await handler(sqsEvent(sqsRecord(webhookMessage(url))), lambdaContext('sendWebhook'));
    expect(result).toEqual({ batchItemFailures: [] });
    expect(table.attempts[0]).toMatchObject({ outcome: 'delivered', statusCode: 202 });
  });
});
