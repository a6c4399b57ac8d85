// The known-address lists: the DynamoDB side (BatchGet lookups, the import) and the per-process cache.
import { DynamoDBDocumentClient, BatchGetCommand, BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { knownAddressKey } from '../../../functions/store/keys';
import { DynamoKnownLists, knownAddressWriter } from '../../../functions/store/known-lists';
import { importKnownAddresses, parseListFile } from '../../../functions/domain/validation/list-import';
import {
  CachedKnownLists,
  InMemoryKnownLists,
  type KnownAddressLists,
} from '../../../functions/domain/validation/known-lists';

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

describe('CachedKnownLists', () => {
  /** Lists that count the addresses they are asked about. */
  function counting(lists: InMemoryKnownLists) {
    const asked: string[][] = [];
    const inner: KnownAddressLists = {
      isKnownDead: (c, e) => lists.isKnownDead(c, e),
      isKnownComplainer: (c, e) => lists.isKnownComplainer(c, e),
      lookup: async (c, emails) => {
        asked.push([...emails]);
        return lists.lookup(c, emails);
      },
    };
    return { inner, asked };
  }

  it('answers a repeated address (listed or not) from memory until the TTL runs out', async () => {
    let now = 1_000_000;
    const { inner, asked } = counting(new InMemoryKnownLists().add('global', 'dead', 'a@x.test'));
    const cached = new CachedKnownLists(inner, () => new Date(now), 10_000);
    expect((await cached.lookup(undefined, ['A@x.test', 'b@x.test'])).get('a@x.test')).toEqual({
      dead: true,
      complainer: false,
    });
    now += 9_999;
    expect(await cached.isKnownDead(undefined, 'a@x.test')).toBe(true);
    expect(await cached.isKnownDead(undefined, 'b@x.test')).toBe(false);
    expect(asked).toEqual([['a@x.test', 'b@x.test']]);
    now += 1;
    expect(await cached.isKnownDead(undefined, 'b@x.test')).toBe(false);
    expect(asked).toEqual([['a@x.test', 'b@x.test'], ['b@x.test']]);
  });

  it('keeps companies apart and asks only for the addresses it does not hold', async () => {
    const { inner, asked } = counting(new InMemoryKnownLists().add('acme', 'complainer', 'c@x.test'));
    const cached = new CachedKnownLists(inner, () => new Date(0));
    expect(await cached.isKnownComplainer('acme', 'c@x.test')).toBe(true);
    expect(await cached.isKnownComplainer('other', 'c@x.test')).toBe(false);
    const flags = await cached.lookup('acme', ['c@x.test', 'd@x.test']);
    expect([...flags.keys()]).toEqual(['c@x.test']);
    expect(asked).toEqual([['c@x.test'], ['c@x.test'], ['d@x.test']]);
  });

  it('does not remember a failed lookup', async () => {
    let fail = true;
    const inner: KnownAddressLists = {
      isKnownDead: async () => false,
      isKnownComplainer: async () => false,
      lookup: async (_c, emails) => {
        if (fail) throw new Error('table unavailable');
        return new Map([...emails].map((e) => [e, { dead: true, complainer: false }]));
      },
    };
    const cached = new CachedKnownLists(inner, () => new Date(0));
    await expect(cached.lookup(undefined, ['a@x.test'])).rejects.toThrow('table unavailable');
    fail = false;
    expect(await cached.isKnownDead(undefined, 'a@x.test')).toBe(true);
  });

  it('hands out copies: a caller changing its flags does not change the memory', async () => {
    const { inner } = counting(new InMemoryKnownLists().add('global', 'dead', 'a@x.test'));
    const cached = new CachedKnownLists(inner, () => new Date(0));
    const first = await cached.lookup(undefined, ['a@x.test']);
    first.get('a@x.test')!.dead = false;
    expect(await cached.isKnownDead(undefined, 'a@x.test')).toBe(true);
  });
});
