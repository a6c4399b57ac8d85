// DynamoDB Local supervised: a JVM that dies is replaced on the same port with the same data, and after
// too many deaths the supervisor gives up with a message; the API answers 503 while it is down.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GetItemCommand, ListTablesCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { startApiGateway, type DependencyHealth } from '../../local/api-gateway';
import { ensureTable, localDynamoDbClient, startDynamoDbLocal } from '../../local/dynamodb';

jest.setTimeout(180_000);

function exited(pid: number): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      try {
        process.kill(pid, 0);
        setTimeout(check, 50);
      } catch {
        resolve();
      }
    };
    check();
  });
}

describe('the DynamoDB Local supervisor', () => {
  it('restarts a killed JVM on the same port and data, then gives up with a message after too many', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'mailvet-supervisor-'));
    const fatal: Error[] = [];
    const dynamo = await startDynamoDbLocal({
      dataDir,
      maxRestarts: 1,
      onFatal: (error) => fatal.push(error),
    });
    const client = localDynamoDbClient(dynamo.endpoint);
    try {
      const first = dynamo.process.pid!;
      // the compiled launcher class, not its .java source (source-file mode runs javac at every start)
      const args = readFileSync(`/proc/${first}/cmdline`, 'utf8').split('\0');
      expect(args).toContain('LoopbackLauncher');
      expect(args.filter((arg) => arg.endsWith('.java'))).toEqual([]);
      const killedAt = Date.now();
      process.kill(first, 'SIGKILL');
      await exited(first);
      expect(await dynamo.failedSince(killedAt)).toBe(true);
      await dynamo.whenAvailable(90_000);
      expect(dynamo.process.pid).not.toBe(first);
      expect(dynamo.available()).toBe(true);
      await expect(client.send(new ListTablesCommand({}))).resolves.toBeDefined();
      expect(await dynamo.failedSince(Date.now())).toBe(false);

      process.kill(dynamo.process.pid!, 'SIGKILL');
      const deadline = Date.now() + 60_000;
      while (fatal.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(dynamo.available()).toBe(false);
      await expect(dynamo.whenAvailable(1000)).rejects.toThrow(/exited 2 times/);
      expect(fatal).toHaveLength(1);
      expect(fatal[0]!.message).toMatch(/the local runtime stops/);
    } finally {
      client.destroy();
      await dynamo.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

/** SQLite's file header: bytes 18 and 19 (write and read versions) are 2 in WAL mode, 1 with a rollback journal. */
function journalOf(dbFile: string): 'wal' | 'rollback' {
  const header = readFileSync(dbFile).subarray(0, 100);
  return header[18] === 2 && header[19] === 2 ? 'wal' : 'rollback';
}

describe("DynamoDB Local's SQLite journal (LOCAL_FSYNC)", () => {
  it.each([['normal (the default)', undefined, 'normal'] as const, ['off', 'off', 'off'] as const])(
    '%s: WAL mode, and a write it answered survives a killed JVM',
    async (_name, fsync, expected) => {
      const dataDir = mkdtempSync(path.join(os.tmpdir(), 'mailvet-sqlite-sync-'));
      const dynamo = await startDynamoDbLocal({ dataDir, ...(fsync ? { fsync } : {}) });
      const client = localDynamoDbClient(dynamo.endpoint);
      try {
        const first = dynamo.process.pid!;
        expect(readFileSync(`/proc/${first}/cmdline`, 'utf8').split('\0')).toContain(
          `-Dmailvet.sqliteSync=${expected}`,
        );
        await ensureTable(dynamo.endpoint, 'journal');
        const key = { pk: { S: 'COMPANY#c1' }, sk: { S: 'WRITTEN' } };
        await client.send(new PutItemCommand({ TableName: 'journal', Item: { ...key, n: { N: '1' } } }));
        expect(journalOf(path.join(dataDir, 'shared-local-instance.db'))).toBe('wal');
        expect(existsSync(path.join(dataDir, 'shared-local-instance.db-wal'))).toBe(true);
        // The commit is in the WAL file before the answer: the JVM's death does not lose it.
        process.kill(first, 'SIGKILL');
        await exited(first);
        await dynamo.whenAvailable(90_000);
        expect(dynamo.process.pid).not.toBe(first);
        const { Item } = await client.send(new GetItemCommand({ TableName: 'journal', Key: key }));
        expect(Item?.n).toEqual({ N: '1' });
      } finally {
        client.destroy();
        await dynamo.stop();
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  );

  it('full: asks the launcher for synchronous=FULL, in WAL mode', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'mailvet-sqlite-sync-'));
    const dynamo = await startDynamoDbLocal({ dataDir, fsync: 'full' });
    try {
      expect(readFileSync(`/proc/${dynamo.process.pid!}/cmdline`, 'utf8').split('\0')).toContain(
        '-Dmailvet.sqliteSync=full',
      );
      await ensureTable(dynamo.endpoint, 'journal');
      expect(journalOf(path.join(dataDir, 'shared-local-instance.db'))).toBe('wal');
    } finally {
      await dynamo.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('the local API while a dependency is down', () => {
  it('answers 503 with Retry-After, and turns a 500 the outage caused into the same 503', async () => {
    const health = { up: true, failed: false };
    const dependencies: DependencyHealth = {
      available: () => health.up,
      failedSince: async () => health.failed,
    };
    const api = await startApiGateway({
      routes: [{ method: 'GET', path: '/v1/thing', function: 'thing' }],
      defaultFunction: 'notFound',
      invoke: async () => ({ statusCode: 500, body: '{"error":"Internal server error"}' }),
      port: 0,
      host: '127.0.0.1',
      dependencies,
    });
    try {
      // A genuine 500 stays a 500.
      expect((await fetch(`${api.url}/v1/thing`)).status).toBe(500);
      health.failed = true;
      const caused = await fetch(`${api.url}/v1/thing`);
      expect(caused.status).toBe(503);
      health.up = false;
      const down = await fetch(`${api.url}/v1/thing`);
      expect(down.status).toBe(503);
      expect(down.headers.get('retry-after')).toBe('5');
      expect(await down.json()).toEqual({ error: 'Service temporarily unavailable' });
    } finally {
      await api.close();
    }
  });
});
