import type { SQSEvent } from 'aws-lambda';
import { z } from 'zod';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { sqsBatch } from '../../../functions/middlewares/sqs-batch';
import { pendingCommandCounts, send } from '../../../functions/store/dynamodb';

const event = (...bodies: string[]): SQSEvent =>
  ({ Records: bodies.map((body, i) => ({ messageId: `m${i}`, body })) }) as unknown as SQSEvent;
const schema = z.object({ n: z.number() });

describe('sqsBatch', () => {
  it('writes the DynamoDB command counts of the batch when it ends', async () => {
    const doc = { send: async () => ({}) } as never;
    const consume = sqsBatch(
      schema,
      async () => {
        await send(new GetCommand({ TableName: 't', Key: { pk: 'p', sk: 's' } }), { doc });
        expect(pendingCommandCounts().get('GetCommand')).toBeGreaterThan(0);
        return undefined;
      },
      { name: 'test' },
    );
    expect(await consume(event('{"n":1}'))).toEqual({ batchItemFailures: [] });
    expect(pendingCommandCounts().size).toBe(0);
  });

  it('hands each parsed message to the use case and reports only the records to deliver again', async () => {
    const seen: number[] = [];
    const consume = sqsBatch(
      schema,
      async ({ n }) => {
        seen.push(n);
        if (n === 2) throw new Error('boom');
        return n === 3 ? 'retry' : undefined;
      },
      { name: 'test' },
    );
    const result = await consume(event('{"n":1}', '{"n":2}', '{"n":3}', '{"n":4}'));
    expect(seen).toEqual([1, 2, 3, 4]);
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: 'm1' }, { itemIdentifier: 'm2' }] });
  });

  it('drops a record that is not JSON or not the schema, after the unreadable hook saw it', async () => {
    const unreadable: string[] = [];
    const handle = jest.fn(async () => undefined);
    const consume = sqsBatch(schema, handle, {
      name: 'test',
      onUnreadable: async (record) => {
        unreadable.push(record.body);
      },
    });
    expect(await consume(event('{nope', '{"n":"x"}', '{"n":5}'))).toEqual({ batchItemFailures: [] });
    expect(unreadable).toEqual(['{nope', '{"n":"x"}']);
    expect(handle).toHaveBeenCalledTimes(1);
  });

  it('delivers an unreadable record again when its hook fails', async () => {
    const consume = sqsBatch(schema, async () => undefined, {
      name: 'test',
      onUnreadable: async () => {
        throw new Error('table down');
      },
    });
    expect(await consume(event('{nope'))).toEqual({ batchItemFailures: [{ itemIdentifier: 'm0' }] });
  });

  it('runs the records at once when concurrent', async () => {
    let running = 0;
    let most = 0;
    const consume = sqsBatch(
      schema,
      async () => {
        most = Math.max(most, ++running);
        await new Promise((resolve) => setImmediate(resolve));
        running--;
      },
      { name: 'test', concurrent: true },
    );
    await consume(event('{"n":1}', '{"n":2}', '{"n":3}'));
    expect(most).toBe(3);
  });
});
