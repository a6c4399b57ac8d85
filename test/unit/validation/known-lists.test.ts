// The DynamoDB side of the known-address lists: BatchGet lookups and the import.
import { DynamoDBDocumentClient, BatchGetCommand, BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { knownAddressKey } from '../../../functions/store/keys';
import { DynamoKnownLists, knownAddressWriter } from '../../../functions/store/known-lists';
import { importKnownAddresses, parseListFile } from '../../../functions/domain/validation/list-import';

const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
const ddb = mockClient(doc);
afterEach(() => ddb.reset());

describe('DynamoKnownLists', () => {
  it('looks global and company lists up in one BatchGet and merges the flags', async () => {
    ddb.on(BatchGetCommand).resolves({
      Responses: {
        t: [
          { ...knownAddressKey('global', 'dead', 'a@x.test'), email: 'a@x.test' },
          { ...knownAddressKey('acme', 'complainer', 'b@x.test'), email: 'b@x.test' },
        ],
      },
    });
    const lists = new DynamoKnownLists(doc, 't');
    const flags = await lists.lookup('acme', ['A@x.test', 'b@x.test', 'c@x.test']);
    expect(flags.get('a@x.test')).toEqual({ dead: true, complainer: false });
    expect(flags.get('b@x.test')).toEqual({ dead: false, complainer: true });
    expect(flags.has('c@x.test')).toBe(false);
    const keys = ddb.commandCalls(BatchGetCommand)[0]?.args[0].input.RequestItems?.t?.Keys ?? [];
    // 3 addresses x 2 scopes x 2 kinds
    expect(keys).toHaveLength(12);
    expect(keys).toContainEqual({ pk: 'LIST#acme#b@x.test', sk: 'COMPLAINER' });
  });

  it('retries unprocessed keys', async () => {
    ddb
      .on(BatchGetCommand)
      .resolvesOnce({
        Responses: { t: [] },
        UnprocessedKeys: { t: { Keys: [knownAddressKey('global', 'dead', 'a@x.test')] } },
      })
      .resolves({
        Responses: { t: [{ ...knownAddressKey('global', 'dead', 'a@x.test'), email: 'a@x.test' }] },
      });
    expect(await new DynamoKnownLists(doc, 't').isKnownDead(undefined, 'a@x.test')).toBe(true);
    expect(ddb.commandCalls(BatchGetCommand)).toHaveLength(2);
  });
});

describe('importing a list', () => {
  it('parses one address per line or the first CSV cell, skipping comments and blanks', () => {
    expect(parseListFile('# dead list\na@x.test\r\n\n"b@x.test",2024-01-01\nc@x.test;note\n')).toEqual([
      'a@x.test',
      'b@x.test',
      'c@x.test',
    ]);
  });

  it('writes lower-cased, de-duplicated items in batches of 25 and skips non-addresses', async () => {
    ddb.on(BatchWriteCommand).resolves({});
    const emails = [
      ...Array.from({ length: 30 }, (_, i) => `User${i}@X.test`),
      'user0@x.test',
      'not an address',
    ];
    const summary = await importKnownAddresses(knownAddressWriter(doc, 't'), {
      kind: 'dead',
      scope: 'global',
      emails,
      clock: () => new Date(0),
    });
    expect(summary).toEqual({ imported: 30, skipped: ['not an address'] });
    const calls = ddb.commandCalls(BatchWriteCommand);
    expect(calls.map((c) => c.args[0].input.RequestItems?.t?.length)).toEqual([25, 5]);
    expect(calls[0]?.args[0].input.RequestItems?.t?.[0]?.PutRequest?.Item).toEqual({
      pk: 'LIST#global#user0@x.test',
      sk: 'DEAD',
      gsi1pk: 'LIST#global#DEAD',
      gsi1sk: 'user0@x.test',
      email: 'user0@x.test',
      kind: 'dead',
      scope: 'global',
      importedAt: '1970-01-01T00:00:00.000Z',
    });
  });
});
