// The local runtime as a client sees it: authentication, conventions, the rate limit, and DynamoDB
// Local's transactions, over real HTTP against the real emulators.
import { GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { dynamoDb, tableName } from '../../functions/clients/dynamodb';
import { startTestRuntime, type TestRuntime } from '../helpers/local-runtime';

let local: TestRuntime;

beforeAll(async () => {
  local = await startTestRuntime({ RATE_LIMIT_PER_SECOND: '5' });
});

afterAll(async () => {
  await local?.stop();
});

const get = (path: string, key?: string) =>
  fetch(`${local.baseUrl}${path}`, { headers: key ? { 'x-api-key': key } : {} });

describe('the local runtime', () => {
  it('answers 401 without a key, 403 for a wrong key, and lets the demo key reach the route', async () => {
    const missing = await get('/v1/email/validate-file/00000000-0000-4000-8000-000000000000');
    expect(missing.status).toBe(401);
    expect(await missing.text()).toBe('{"error":"Missing API key"}');

    const wrong = await get('/v1/email/validate-file/00000000-0000-4000-8000-000000000000', 'wrong');
    expect(wrong.status).toBe(403);
    expect(await wrong.text()).toBe('{"error":"Invalid API key"}');

    const admin = await get('/v1/email/validate-file/00000000-0000-4000-8000-000000000000', local.keys.admin);
    expect([200, 404, 501]).toContain(admin.status);
    expect(admin.status).not.toBe(401);
    expect(admin.status).not.toBe(403);
  });

  it('answers 404 {"error":"Not found"} for an unknown route, with or without a key', async () => {
    for (const key of [undefined, local.keys.admin]) {
      const response = await get('/v2/nothing/here', key);
      expect(response.status).toBe(404);
      expect(await response.text()).toBe('{"error":"Not found"}');
    }
    const wrongMethod = await fetch(`${local.baseUrl}/v1/email/validate-file`, { method: 'DELETE' });
    expect(wrongMethod.status).toBe(404);
  });

  it('answers 400 {"error":"Invalid JSON body"} for a malformed body', async () => {
    const response = await fetch(`${local.baseUrl}/v1/email/validate`, {
      method: 'POST',
      headers: { 'x-api-key': local.keys.other, 'content-type': 'application/json' },
      body: '{"email": ',
    });
    expect(response.status).toBe(400);
    expect(await response.text()).toBe('{"error":"Invalid JSON body"}');
  });

  it('limits one company past its per-second rate while another company is unaffected', async () => {
    // Wait for the start of a fresh second so the burst falls in one counter window.
    await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 20));
    const burst = await Promise.all(
      Array.from({ length: 20 }, () =>
        get('/v1/email/validate-file/00000000-0000-4000-8000-000000000000', local.keys.admin),
      ),
    );
    const other = await get('/v1/email/validate-file/00000000-0000-4000-8000-000000000000', local.keys.other);

    const limited = burst.filter((r) => r.status === 429);
    // 5 per second: at most 5 of the burst pass in each second it spans (three at the very most).
    expect(limited.length).toBeGreaterThanOrEqual(5);
    expect(burst.length - limited.length).toBeLessThanOrEqual(15);
    expect(limited[0]!.headers.get('retry-after')).toBe('1');
    expect(await limited[0]!.text()).toBe('{"error":"Rate limit exceeded"}');
    expect(other.status).not.toBe(429);
  });

  it('cancels a DynamoDB Local transaction whose condition fails, writing nothing', async () => {
    const table = tableName();
    await dynamoDb().send(new PutCommand({ TableName: table, Item: { pk: 'TEST#tx', sk: 'A', value: 1 } }));
    const transaction = new TransactWriteCommand({
      TransactItems: [
        { Put: { TableName: table, Item: { pk: 'TEST#tx', sk: 'B', value: 2 } } },
        {
          Update: {
            TableName: table,
            Key: { pk: 'TEST#tx', sk: 'A' },
            UpdateExpression: 'SET #v = :new',
            ConditionExpression: '#v = :expected',
            ExpressionAttributeNames: { '#v': 'value' },
            ExpressionAttributeValues: { ':new': 3, ':expected': 99 },
          },
        },
      ],
    });
    await expect(dynamoDb().send(transaction)).rejects.toMatchObject({
      name: 'TransactionCanceledException',
    });
    const { Item } = await dynamoDb().send(
      new GetCommand({
        TableName: table,
        Key: { pk: 'TEST#tx', sk: 'B' },
      }),
    );
    expect(Item).toBeUndefined();
  });
});

describe('stopping the local runtime', () => {
  it('leaves nothing that keeps its process alive (benches and scripts exit at once)', async () => {
    // a process of its own: this one's event loop has the file's runtime and Jest on it
    const script = `
      const { mkdtempSync, rmSync } = require('node:fs');
      const os = require('node:os');
      const path = require('node:path');
      const { startLocalRuntime } = require(path.resolve('local/runtime.ts'));
      (async () => {
        const dataDir = mkdtempSync(path.join(os.tmpdir(), 'mailvet-exit-'));
        const runtime = await startLocalRuntime({ port: 0, dataDir, fsync: false, workers: 0 });
        await runtime.stop();
        rmSync(dataDir, { recursive: true, force: true });
        console.log('stopped');
      })();
    `;
    const child = spawn(process.execPath, ['--import', 'tsx', '-e', script], {
      cwd: path.resolve(__dirname, '../..'),
      env: { ...process.env, LOG_LEVEL: 'warn' },
    });
    let output = '';
    let stoppedAt = 0;
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (!stoppedAt && output.includes('stopped')) stoppedAt = performance.now();
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect({ code, output }).toEqual({ code: 0, output: expect.stringContaining('stopped') });
    // a timer left behind by stop() held it here for 10 s
    expect(performance.now() - stoppedAt).toBeLessThan(3000);
  });
});
