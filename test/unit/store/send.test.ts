// store/dynamodb.ts send(): a plain write that meets a transaction on its item (TransactionConflictException,
// which the SDK does not retry) is sent again; throttling that outlived the SDK's retries is a 503;
// every other error is the caller's at once. Every command is counted, batches and pages included.
import { DynamoDBServiceException } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { ServiceUnavailableError } from '../../../functions/errors';
import {
  batchGetAll,
  flushCommandMetrics,
  pendingCommandCounts,
  queryAll,
  send,
} from '../../../functions/store/dynamodb';

const ddb = mockClient(DynamoDBDocumentClient);
const update = () =>
  new UpdateCommand({
    TableName: 't',
    Key: { pk: 'JOB#1', sk: 'JOB' },
    UpdateExpression: 'SET a = :a',
    ExpressionAttributeValues: { ':a': 1 },
  });

function serviceError(name: string): DynamoDBServiceException {
  return new DynamoDBServiceException({ name, $fault: 'client', $metadata: {}, message: name });
}

beforeEach(() => ddb.reset());

describe('send', () => {
  it('sends a write again after it met a transaction in flight', async () => {
    ddb
      .on(UpdateCommand)
      .rejectsOnce(serviceError('TransactionConflictException'))
      .rejectsOnce(serviceError('TransactionConflictException'))
      .resolves({ Attributes: { a: 1 } });
    await expect(send(update())).resolves.toEqual({ Attributes: { a: 1 } });
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(3);
  });

  it('gives up after five conflicts', async () => {
    ddb.on(UpdateCommand).rejects(serviceError('TransactionConflictException'));
    await expect(send(update())).rejects.toThrow('TransactionConflictException');
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(5);
  });

  it('passes any other error at once (a failed condition is an answer, not a conflict)', async () => {
    ddb.on(UpdateCommand).rejects(serviceError('ConditionalCheckFailedException'));
    await expect(send(update())).rejects.toThrow('ConditionalCheckFailedException');
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(1);
  });
});

describe('send: throttling', () => {
  it.each(['ProvisionedThroughputExceededException', 'ThrottlingException', 'RequestLimitExceeded'])(
    'answers %s (after the SDK gave up retrying) with the 503 error, sent once',
    async (name) => {
      ddb.on(UpdateCommand).rejects(serviceError(name));
      const error = await send(update()).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ServiceUnavailableError);
      expect((error as ServiceUnavailableError).statusCode).toBe(503);
      expect((error as ServiceUnavailableError).headers['retry-after']).toBe('2');
      expect(ddb.commandCalls(UpdateCommand)).toHaveLength(1);
    },
  );
});

describe('send: the one path', () => {
  beforeEach(() => flushCommandMetrics());

  it('counts each command by name, and a flush starts the counts over', async () => {
    ddb.on(UpdateCommand).resolves({});
    await send(update());
    await send(update());
    expect(pendingCommandCounts().get('UpdateCommand')).toBe(2);
    flushCommandMetrics();
    expect(pendingCommandCounts().size).toBe(0);
  });

  it('carries the pages of a Query and the rounds of a BatchGet', async () => {
    ddb
      .on(QueryCommand)
      .resolvesOnce({ Items: [{ pk: 'a' }], LastEvaluatedKey: { pk: 'a', sk: 'x' } })
      .resolves({ Items: [{ pk: 'b' }] });
    ddb
      .on(BatchGetCommand)
      .resolvesOnce({ Responses: {}, UnprocessedKeys: { t: { Keys: [{ pk: 'k', sk: 's' }] } } })
      .resolves({ Responses: { t: [{ pk: 'k', sk: 's' }] } });
    expect(await queryAll({ KeyConditionExpression: 'pk = :pk' })).toEqual([{ pk: 'a' }, { pk: 'b' }]);
    expect(await batchGetAll([{ pk: 'k', sk: 's' }], { table: 't' })).toEqual([{ pk: 'k', sk: 's' }]);
    expect(ddb.commandCalls(QueryCommand)[1]!.args[0].input.ExclusiveStartKey).toEqual({ pk: 'a', sk: 'x' });
    expect(pendingCommandCounts().get('QueryCommand')).toBe(2);
    expect(pendingCommandCounts().get('BatchGetCommand')).toBe(2);
  });
});
