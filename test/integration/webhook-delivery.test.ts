// The real sendWebhook handler against a real HTTP receiver on 127.0.0.1, with SQS and DynamoDB
// mocked. Each handler call is one receive of the message; the receive count is the attempt number.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ChangeMessageVisibilityCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { Webhook } from 'standardwebhooks';
import { postWebhook } from '../../functions/domain/webhooks/post';
import { sendWebhook } from '../../functions/handlers/send-webhook';
import { sortedJson } from '../../functions/json';
import { resetSettings } from '../../functions/settings';
import {
  secret,
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
let receiver: Receiver | undefined;
let table: FakeTable;

beforeEach(() => {
  process.env.ALLOW_PRIVATE_CALLBACKS = 'true';
  process.env.WEBHOOK_TIMEOUT_MS = '400';
  process.env.WEBHOOK_RETRY_BASE_SECONDS = '60';
  resetSettings();
  table = resetWebhookMocks(ddb, sqs);
});

afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

afterAll(() => {
  process.env = saved;
  resetSettings();
});

const visibilityChanges = () => sqs.commandCalls(ChangeMessageVisibilityCommand).map((c) => c.args[0].input);

describe('completion webhook delivery', () => {
  it('retries a 500 and acknowledges the 200 that follows, once, with the same webhook-id', async () => {
    receiver = await startReceiver([500, 200]);
    const message = webhookMessage(receiver.url);

    const first = sqsRecord(message, 1);
    expect(await sendWebhook(sqsEvent(first))).toEqual({
      batchItemFailures: [{ itemIdentifier: first.messageId }],
    });
    expect(visibilityChanges()).toEqual([
      {
        QueueUrl: process.env.WEBHOOKS_QUEUE_URL,
        ReceiptHandle: first.receiptHandle,
        VisibilityTimeout: expect.any(Number),
      },
    ]);
    const delay = visibilityChanges()[0]?.VisibilityTimeout ?? 0;
    expect(delay).toBeGreaterThanOrEqual(48);
    expect(delay).toBeLessThanOrEqual(72);

    const second = sqsRecord(message, 2);
    expect(await sendWebhook(sqsEvent(second))).toEqual({ batchItemFailures: [] });
    expect(visibilityChanges()).toHaveLength(1);

    expect(receiver.requests).toHaveLength(2);
    const [a, b] = receiver.requests;
    expect(a?.headers['webhook-id']).toBe(message.webhookId);
    expect(b?.headers['webhook-id']).toBe(message.webhookId);
    for (const request of receiver.requests) {
      expect(request.method).toBe('POST');
      expect(request.url).toBe('/hooks/mailvet');
      expect(request.headers['content-type']).toBe('application/json');
      expect(request.body).toBe(sortedJson(message.payload));
      expect(() =>
        new Webhook(secret).verify(request.body, request.headers as Record<string, string>),
      ).not.toThrow();
    }
    expect(b?.body).toBe(
      '{"event":"bulk_validation.completed","jobId":"6f1c2a7e-3b7d-4a53-9a56-0f5b2d1e9c11",' +
        '"statistics":{"block_bounce_risk":2,"dead_email":0,"do_not_mail_abuse":0,"safe":7,"some_risk":1},' +
        '"status":"completed","totalEmails":10}',
    );

    expect(table.attempts).toEqual([
      {
        attempt: 1,
        at: expect.any(String),
        outcome: 'retry',
        statusCode: 500,
        error: 'HTTP 500',
        durationMs: expect.any(Number),
        nextAttemptAt: expect.any(String),
      },
      {
        attempt: 2,
        at: expect.any(String),
        outcome: 'delivered',
        statusCode: 200,
        durationMs: expect.any(Number),
      },
    ]);
    expect(table.webhookStatus).toBe('delivered');
  });

  it('does not send again when a duplicate copy arrives after delivery', async () => {
    receiver = await startReceiver([200]);
    const message = webhookMessage(receiver.url);
    await sendWebhook(sqsEvent(sqsRecord(message, 1)));
    expect(await sendWebhook(sqsEvent(sqsRecord(message, 1)))).toEqual({ batchItemFailures: [] });
    expect(receiver.requests).toHaveLength(1);
    expect(table.attempts).toHaveLength(1);
  });

  it('makes one attempt only for a 404', async () => {
    receiver = await startReceiver([404, 200]);
    const record = sqsRecord(webhookMessage(receiver.url), 1);
    expect(await sendWebhook(sqsEvent(record))).toEqual({ batchItemFailures: [] });
    expect(receiver.requests).toHaveLength(1);
    expect(visibilityChanges()).toEqual([]);
    expect(table.attempts).toEqual([
      {
        attempt: 1,
        at: expect.any(String),
        outcome: 'failed',
        statusCode: 404,
        error: 'HTTP 404',
        durationMs: expect.any(Number),
      },
    ]);
    expect(table.webhookStatus).toBe('failed');
  });

  it('retries a 429', async () => {
    receiver = await startReceiver([429, 204]);
    const message = webhookMessage(receiver.url);
    const first = sqsRecord(message, 1);
    expect((await sendWebhook(sqsEvent(first))).batchItemFailures).toEqual([
      { itemIdentifier: first.messageId },
    ]);
    expect(visibilityChanges()).toHaveLength(1);
    expect(table.webhookStatus).toBe('retrying');
    expect((await sendWebhook(sqsEvent(sqsRecord(message, 2)))).batchItemFailures).toEqual([]);
    expect(table.attempts.map((a) => [a.outcome, a.statusCode])).toEqual([
      ['retry', 429],
      ['delivered', 204],
    ]);
  });

  it('times out a receiver that never answers and retries it', async () => {
    receiver = await startReceiver(['hang', 200]);
    const message = webhookMessage(receiver.url);
    const first = sqsRecord(message, 1);
    const started = Date.now();
    expect((await sendWebhook(sqsEvent(first))).batchItemFailures).toEqual([
      { itemIdentifier: first.messageId },
    ]);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(table.attempts).toEqual([
      {
        attempt: 1,
        at: expect.any(String),
        outcome: 'retry',
        error: 'No response within 400 ms',
        durationMs: expect.any(Number),
        nextAttemptAt: expect.any(String),
      },
    ]);
    expect(visibilityChanges()).toHaveLength(1);
    expect((await sendWebhook(sqsEvent(sqsRecord(message, 2)))).batchItemFailures).toEqual([]);
    expect(receiver.requests).toHaveLength(2);
  });

  it('neither follows nor retries a 302', async () => {
    receiver = await startReceiver([{ status: 302, headers: { location: '/elsewhere' } }, 200]);
    const record = sqsRecord(webhookMessage(receiver.url), 1);
    expect(await sendWebhook(sqsEvent(record))).toEqual({ batchItemFailures: [] });
    expect(receiver.requests.map((r) => r.url)).toEqual(['/hooks/mailvet']);
    expect(visibilityChanges()).toEqual([]);
    expect(table.attempts).toEqual([
      {
        attempt: 1,
        at: expect.any(String),
        outcome: 'failed',
        statusCode: 302,
        error: 'HTTP 302',
        durationMs: expect.any(Number),
      },
    ]);
  });

  it('retries a refused connection', async () => {
    receiver = await startReceiver([200]);
    const url = receiver.url;
    await receiver.close();
    receiver = undefined;
    const record = sqsRecord(webhookMessage(url), 1);
    expect((await sendWebhook(sqsEvent(record))).batchItemFailures).toHaveLength(1);
    expect(table.attempts).toEqual([
      {
        attempt: 1,
        at: expect.any(String),
        outcome: 'retry',
        error: 'Connection error: ECONNREFUSED',
        durationMs: expect.any(Number),
        nextAttemptAt: expect.any(String),
      },
    ]);
  });

  it('gives up after the sixth attempt: records failed and acknowledges without relying on the DLQ', async () => {
    receiver = await startReceiver([503]);
    const message = webhookMessage(receiver.url);
    const failures = [];
    for (let attempt = 1; attempt <= 6; attempt += 1) {
      failures.push((await sendWebhook(sqsEvent(sqsRecord(message, attempt)))).batchItemFailures.length);
    }
    expect(failures).toEqual([1, 1, 1, 1, 1, 0]);
    expect(receiver.requests).toHaveLength(6);
    expect(table.attempts.map((a) => `${a.attempt}:${a.outcome}`)).toEqual([
      '1:retry',
      '2:retry',
      '3:retry',
      '4:retry',
      '5:retry',
      '6:failed',
    ]);
    expect(table.webhookStatus).toBe('failed');
    const delays = visibilityChanges().map((c) => c.VisibilityTimeout ?? 0);
    [60, 120, 240, 480, 960].forEach((nominal, i) => {
      expect(delays[i]).toBeGreaterThanOrEqual(nominal * 0.8);
      expect(delays[i]).toBeLessThanOrEqual(nominal * 1.2);
    });
  });

  it('delivers a batch concurrently and reports only the records that must come back', async () => {
    receiver = await startReceiver(['hang']);
    const slow = sqsRecord(webhookMessage(receiver.url), 1);
    const ok = await startReceiver([200]);
    try {
      const fine = sqsRecord(webhookMessage(ok.url, { webhookId: 'msg_other' }), 1);
      const started = Date.now();
      const result = await sendWebhook(sqsEvent(slow, fine, slow));
      expect(Date.now() - started).toBeLessThan(1500);
      expect(result.batchItemFailures).toEqual([
        { itemIdentifier: slow.messageId },
        { itemIdentifier: slow.messageId },
      ]);
      expect(ok.requests).toHaveLength(1);
    } finally {
      await ok.close();
    }
  });
});

describe('response bodies', () => {
  it('reads at most 64 KiB of an endless 200 response and acknowledges it', async () => {
    const server = createServer((request, response) => {
      request.resume();
      response.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(16 * 1024, 'x');
      const pump = () => {
        while (!response.destroyed && response.write(chunk));
        if (!response.destroyed) response.once('drain', pump);
      };
      pump();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      const started = Date.now();
      const result = await postWebhook({
        url: new URL(url),
        headers: {},
        body: '{}',
        timeoutMs: 5000,
        allowPrivate: true,
      });
      expect(result).toEqual({ kind: 'response', statusCode: 200 });
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
