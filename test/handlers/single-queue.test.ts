// The validations queue consumers with the AWS SDK mocked: runValidation finishes a pending request and
// counts it once (idempotent per message, partial batch failures); failValidation fails what is pending.
import {
  DynamoDBDocumentClient,
  GetCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { SQSEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-jest';
import { setSingleEngine, type Validator } from '../../functions/domain/single-validation/engine';
import type { ValidationResult } from '../../functions/domain/validation';
import { failValidation } from '../../functions/handlers/fail-validation';
import { runValidation } from '../../functions/handlers/run-validation';
import { mockStoredValidationRequest } from '../helpers/mocked-store';

const ddb = mockClient(DynamoDBDocumentClient);
const companyId = 'c-acme';
const ids = ['3b0d2a6e-1c4f-4e8a-9d2b-000000000001', '3b0d2a6e-1c4f-4e8a-9d2b-000000000002'] as const;
const keyOf = (requestId: string) => ({ pk: `COMPANY#${companyId}`, sk: `VALIDATION#${requestId}` });

const validated: string[] = [];
const engine: Validator = {
  validate: async (raw) => {
    validated.push(String(raw));
    return {
      email: String(raw),
      result: { status: 'safe', reason: 'domain_ok', subStatus: null },
    } as ValidationResult;
  },
};

function event(...bodies: string[]): SQSEvent {
  return {
    Records: bodies.map((body, i) => ({
      messageId: `m${i}`,
      receiptHandle: `r${i}`,
      body,
      attributes: {
        ApproximateReceiveCount: '1',
        SentTimestamp: '0',
        SenderId: 's',
        ApproximateFirstReceiveTimestamp: '0',
      },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:mailvet-validations',
      awsRegion: 'us-east-1',
    })),
  };
}
const message = (requestId: string) => JSON.stringify({ companyId, requestId });

function stored(requestId: string, item: Record<string, unknown>) {
  mockStoredValidationRequest(ddb, { companyId, requestId }, item);
}

beforeEach(() => {
  ddb.reset();
  validated.length = 0;
  ddb.on(GetCommand).resolves({});
  ddb.on(TransactWriteCommand).resolves({});
  ddb.on(UpdateCommand).resolves({});
  setSingleEngine(engine);
});

afterAll(() => setSingleEngine(undefined));

const conditionCancelled = () =>
  Object.assign(new Error('Transaction cancelled'), {
    name: 'TransactionCanceledException',
    CancellationReasons: [{ Code: 'ConditionalCheckFailed' }, { Code: 'None' }],
  });

describe('runValidation', () => {
  it('completes a pending request and counts it, in one transaction conditioned on pending', async () => {
    stored(ids[0], { status: 'pending', input: 'jo@example.test' });
    expect(await runValidation(event(message(ids[0])))).toEqual({ batchItemFailures: [] });
    expect(validated).toEqual(['jo@example.test']);
    const [call] = ddb.commandCalls(TransactWriteCommand);
    const [complete, usage] = call!.args[0].input.TransactItems ?? [];
    expect(complete!.Update).toMatchObject({
      Key: keyOf(ids[0]),
      ConditionExpression: '#status = :pending',
      ExpressionAttributeValues: expect.objectContaining({
        ':completed': 'completed',
        ':pending': 'pending',
      }),
    });
    expect(complete!.Update!.UpdateExpression).toContain('REMOVE #input');
    expect(usage!.Update).toMatchObject({
      Key: { pk: `COMPANY#${companyId}`, sk: expect.stringMatching(/^USAGE#\d{4}-\d{2}$/) },
      // One validation, counted as single.
      ExpressionAttributeValues: expect.objectContaining({
        ':validations': 1,
        ':single': 1,
        ':committed': 1,
      }),
    });
  });

  it('does nothing for a request already completed or failed: a redelivery neither validates nor counts', async () => {
    stored(ids[0], { status: 'completed', outcome: {}, validatedAt: new Date().toISOString() });
    stored(ids[1], { status: 'failed', error: 'x' });
    expect(await runValidation(event(message(ids[0]), message(ids[1])))).toEqual({ batchItemFailures: [] });
    expect(validated).toEqual([]);
    expect(ddb).not.toHaveReceivedCommand(TransactWriteCommand);
  });

  it('acknowledges when another delivery completed the request first (the condition fails)', async () => {
    stored(ids[0], { status: 'pending', input: 'jo@example.test' });
    ddb.on(TransactWriteCommand).rejects(conditionCancelled());
    expect(await runValidation(event(message(ids[0])))).toEqual({ batchItemFailures: [] });
  });

  it('runs the transaction again when another transaction held the usage item', async () => {
    stored(ids[0], { status: 'pending', input: 'jo@example.test' });
    const conflict = Object.assign(new Error('Transaction cancelled'), {
      name: 'TransactionCanceledException',
      CancellationReasons: [{ Code: 'None' }, { Code: 'TransactionConflict' }],
    });
    ddb.on(TransactWriteCommand).rejectsOnce(conflict).resolves({});
    expect(await runValidation(event(message(ids[0])))).toEqual({ batchItemFailures: [] });
    expect(ddb).toHaveReceivedCommandTimes(TransactWriteCommand, 2);
  });

  it('reports only the record whose write failed, so SQS retries only it', async () => {
    stored(ids[0], { status: 'pending', input: 'a@example.test' });
    stored(ids[1], { status: 'pending', input: 'b@example.test' });
    ddb
      .on(TransactWriteCommand)
      .callsFake((input: { TransactItems: { Update: { Key: { sk: string } } }[] }) => {
        if (input.TransactItems[0]!.Update.Key.sk.endsWith(ids[1])) throw new Error('DynamoDB is down');
        return {};
      });
    expect(await runValidation(event(message(ids[0]), message(ids[1])))).toEqual({
      batchItemFailures: [{ itemIdentifier: 'm1' }],
    });
  });

  it('drops unreadable messages and requests that no longer exist', async () => {
    expect(await runValidation(event('not json', '{"requestId":1}', message(ids[0])))).toEqual({
      batchItemFailures: [],
    });
    expect(validated).toEqual([]);
  });

  it('fails instead of completing a request pending beyond every retry window (polling said 500)', async () => {
    stored(ids[0], {
      status: 'pending',
      input: 'jo@example.test',
      createdAt: new Date(Date.now() - 2 * 3600_000).toISOString(),
    });
    expect(await runValidation(event(message(ids[0])))).toEqual({ batchItemFailures: [] });
    expect(validated).toEqual([]);
    expect(ddb).toHaveReceivedCommandWith(UpdateCommand, {
      Key: keyOf(ids[0]),
      ConditionExpression: '#status = :pending',
      ExpressionAttributeValues: expect.objectContaining({ ':failed': 'failed' }),
    });
  });
});

describe('failValidation', () => {
  it('marks the pending request failed, under a condition that leaves completed ones alone', async () => {
    expect(await failValidation(event(message(ids[0])))).toEqual({ batchItemFailures: [] });
    expect(ddb).toHaveReceivedCommandWith(UpdateCommand, {
      Key: keyOf(ids[0]),
      ConditionExpression: '#status = :pending',
      ExpressionAttributeValues: expect.objectContaining({
        ':failed': 'failed',
        ':error': 'Validation failed; submit the address again',
      }),
    });
  });

  it('acknowledges a request that completed meanwhile, drops unreadable messages, retries on errors', async () => {
    const conditionFailed = Object.assign(new Error('condition'), {
      name: 'ConditionalCheckFailedException',
    });
    ddb.on(UpdateCommand, { Key: keyOf(ids[0]) }).rejects(conditionFailed);
    ddb.on(UpdateCommand, { Key: keyOf(ids[1]) }).rejects(new Error('DynamoDB is down'));
    expect(await failValidation(event(message(ids[0]), 'garbage', message(ids[1])))).toEqual({
      batchItemFailures: [{ itemIdentifier: 'm2' }],
    });
  });
});
