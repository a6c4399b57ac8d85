// store/dynamodb.ts send(): a plain write that meets a transaction on its item (TransactionConflictException,
// which the SDK does not retry) is sent again; every other error is the caller's at once.
import { DynamoDBServiceException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { send } from '../../../functions/store/dynamodb';

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
