// The local runtime: DynamoDB Local, the local S3 (presigned URLs, events) and the local SQS (with
// pollers standing in for Lambda's event source mappings), plus the local API, all wired from
// functions/wiring.ts and running the very handlers the stack deploys.
import '../functions/clients/sdk-notice';
import { recordAwsCalls, runAsFunction, type AwsCall } from '../functions/clients/call-recording';
import { resetServiceClients } from '../functions/clients/reset';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { S3Event } from 'aws-lambda';
import { seedDemoAccounts } from './demo/accounts';
import { seedDemoWorkspace } from './demo/workspace';
import { runPendingMigrations } from '../functions/domain/migrations';
import { systemClock } from '../functions/clock';
import { releaseOrphanedLeases } from '../functions/store/jobs/slots-and-leases';
import { voidAllSessionLeases } from '../functions/store/mx-politeness';
import {
  bucketTriggers,
  deadLetterRetentionSeconds,
  defaultRouteFunction,
  functionByName,
  functions,
  queueConsumers,
  queues,
  preflightRoutes,
  queueDlqUrlEnvName,
  queueUrlEnvName,
  routes,
  schedules as wiringSchedules,
  type FunctionSpec,
  type QueueName,
  type ScheduleSpec,
} from '../functions/wiring';
import { logger } from '../functions/log';
import { startApiGateway, type ApiGateway } from './api-gateway';
import type { LocalResources } from './iam/template-policies';
import { consoleSite } from './console-site';
import { ensureTable, hasData, startDynamoDbLocal, type DynamoDbLocal } from './dynamodb';
import { lambdaContext } from './events';
import { asLocalFsync, fsyncsFiles, localFsync, type LocalFsync } from './fsync';
import { PortInUseError } from './ports';
import { startLocalS3, type LocalS3, type LocalS3Options } from './s3/local-s3';
import { startScheduleTimers } from './schedules';
import { startQueuePoller } from './sqs/poller';
import { startSqsServer, type SqsServer } from './sqs/server';
import { startWorkerPool, type WorkerPool } from './worker-pool';

export const repositoryRoot = path.resolve(__dirname, '..');

export interface LocalRuntimeOptions {
  /** API port; 0 picks a free one. */
  port: number;
  host?: string;
  /** Everything the emulators store lives here and survives a restart. */
  dataDir: string;
  /** Settings for the handlers on top of process.env (e.g. DNS_SERVERS, CHUNK_SIZE_BYTES). */
  env?: Record<string, string>;
  /** Seed the demo workspace when the data directory is new (default true). */
  seed?: boolean;
  /** Start the API and the queue pollers (default true); `npm run invoke` needs only the services. */
  serve?: boolean;
  /**
   * What acknowledged writes survive (local/fsync.ts; default: LOCAL_FSYNC, else `normal`); true and
   * false are `full` and `off`.
   */
  fsync?: LocalFsync | boolean;
  /**
   * The local S3's port, which every upload URL carries (npm start: S3_PORT, else PORT + 1): taken or
   * the start fails. Without it: the port this DATA_DIR used last time, else any free one, so an
   * unexpired upload URL keeps working across a restart.
   */
  s3Port?: number;
  /** DynamoDB Local's port (npm start: DYNAMODB_PORT, else PORT + 2); without it, any free one. */
  dynamoDbPort?: number;
  /**
   * Called when DynamoDB Local cannot be brought back after its JVM exited; `npm start` prints the
   * message and exits. Meanwhile the API answers 503.
   */
  onFatal?: (error: Error) => void;
  /**
   * Keep every AWS call the functions make, with the function that made it (`awsCalls`): the tests check
   * them against the functions' IAM policies, the bench counts them. Off by default (they pile up).
   */
  recordAwsCalls?: boolean;
  /**
   * Worker threads for the queue consumers and the S3-event functions (default: localWorkers()); 0 runs
   * them on the main thread with the API.
   */
  workers?: number;
  /** The schedules whose timers run (default: the wiring's); tests give fixture ones. */
  schedules?: readonly ScheduleSpec[];
  /** Functions beyond the wiring's, run on the main thread (tests: a fixture schedule's function). */
  extraFunctions?: readonly FunctionSpec[];
}

export interface LocalRuntime {
  baseUrl: string;
  endpoints: { dynamoDb: string; s3: string; sqs: string };
  /** The settings the handlers run with. */
  env: Record<string, string>;
  /** True when this start created the data (and seeded the demo workspace). */
  seeded: boolean;
  invoke(functionName: string, event: unknown): Promise<unknown>;
  /** The AWS calls made so far, when started with `recordAwsCalls` (else always empty). */
  awsCalls: AwsCall[];
  /** The worker threads running the queue consumers and the S3-event functions; undefined with 0. */
  workers?: WorkerPool;
  stop(): Promise<void>;
}

/** LOCAL_WORKERS, else one worker thread per core. */
export function localWorkers(): number {
  const raw = process.env.LOCAL_WORKERS;
  if (raw === undefined || raw === '') return os.availableParallelism();
  const count = Number(raw);
  if (!Number.isInteger(count) || count < 0 || count > 64)
    throw new Error(`LOCAL_WORKERS must be a whole number from 0 to 64, got ${raw}`);
  return count;
}

/**
 * The functions that run in the worker threads: what the queues and the bucket invoke (the scan among
 * them), never the API's.
 */
const workerFunctions: ReadonlySet<string> = new Set([
  ...queueConsumers.map((consumer) => consumer.function),
  ...bucketTriggers.flatMap((trigger) => [trigger.function, trigger.onFailure]),
  ...wiringSchedules.map((schedule) => schedule.function),
]);

const localCredentials = { accessKeyId: 'local', secretAccessKey: 'local' };
/** The emulators listen on loopback only, whatever address the API is given. */
const localHost = '127.0.0.1';
const region = 'us-east-1';
const tableName = 'mailvet';
const bucketName = 'mailvet-local';

/** The names this runtime gives the stateful resources (local/iam/ resolves the stack's policies to them). */
export const localResources: LocalResources = {
  region,
  account: '000000000000',
  table: tableName,
  bucket: bucketName,
  queueName: (queue) => `mailvet-${queue}`,
};

type Handler = (event: unknown, context: unknown) => Promise<unknown>;

/** The local runtime's description of itself, for `npm run invoke` and `npm run keys` to connect to. */
export function runtimeFile(dataDir: string): string {
  return path.join(dataDir, 'runtime.json');
}

export async function startLocalRuntime(options: LocalRuntimeOptions): Promise<LocalRuntime> {
  const dataDir = path.resolve(options.dataDir);
  const host = options.host ?? '127.0.0.1';
  mkdirSync(dataDir, { recursive: true });
  const dynamoDir = path.join(dataDir, 'dynamodb');
  const fresh = !hasData(dynamoDir);
  const stoppers: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const stopOne of stoppers.reverse()) await stopOne().catch(() => undefined);
    stoppers.length = 0;
  };
  const awsCalls: AwsCall[] = [];
  const workerCount = options.workers ?? localWorkers();
  let pool: WorkerPool | undefined;
  try {
    // Last to run: the handlers' own SDK clients (and their keep-alive sockets) go with the services.
    stoppers.push(async () => {
      resetServiceClients();
    });
    if (options.recordAwsCalls) {
      recordAwsCalls((call) => awsCalls.push(call));
      stoppers.push(async () => recordAwsCalls(undefined));
    }
    const durability = options.fsync === undefined ? localFsync() : asLocalFsync(options.fsync);
    const fsync = fsyncsFiles(durability);
    const dynamo: DynamoDbLocal = await startDynamoDbLocal({
      dataDir: dynamoDir,
      fsync: durability,
      ...(options.dynamoDbPort === undefined ? {} : { port: options.dynamoDbPort }),
      onFatal: (error) => options.onFatal?.(error),
    });
    stoppers.push(() => dynamo.stop());
    // The pollers live in this process: whatever a previous process had received, nobody holds now.
    const sqsServer: SqsServer = await startSqsServer({
      host: localHost,
      port: 0,
      dataDir: path.join(dataDir, 'sqs'),
      fsync,
      releaseInFlightOnStart: true,
    });
    stoppers.push(() => sqsServer.close());

    // Functions are looked up lazily, so S3 events that arrive during start-up wait for them.
    const handlers = new Map<string, Handler>();
    const extraFunctions = options.extraFunctions ?? [];
    const specOf = (name: string): FunctionSpec =>
      extraFunctions.find((spec) => spec.name === name) ?? functionByName(name);
    const runFunction = (name: string, event: unknown) =>
      withTimeout(
        specOf(name),
        pool && workerFunctions.has(name)
          ? pool.invoke(name, event)
          : invokeFunction(handlers, specOf(name), event),
      );
    // Invocations in flight: stop() lets them finish before the services they use go away.
    const inFlight = new Set<Promise<unknown>>();
    let stopping = false;
    const invoke = (name: string, event: unknown) => {
      if (stopping) return Promise.reject(new Error('The local runtime is stopping'));
      // Queue and S3 work waits for a restarting DynamoDB Local (the API answers 503 meanwhile).
      const running = dynamo.whenAvailable().then(() => runFunction(name, event));
      inFlight.add(running);
      void running.catch(() => undefined).finally(() => inFlight.delete(running));
      return running;
    };
    const s3: LocalS3 = await startS3OnStablePort(dataDir, options, {
      dataDir: path.join(dataDir, 's3'),
      eventsDir: path.join(dataDir, 's3-events'),
      // Only what a function subscribes to is journaled (parts and results written by the pipeline are not).
      prefix: bucketTriggers.map((trigger) => trigger.prefix),
      fsync,
      host: localHost,
      buckets: [bucketName],
      region,
      ...localCredentials,
      onObjectCreated: (event) => dispatchS3Event(invoke, event),
      // The console uploads and downloads from the browser, from another origin than this one; the
      // presigned signature, not the origin, authorizes (the deployed bucket's CORS allows any origin too).
      corsOrigins: ['*'],
    });
    stoppers.push(() => s3.close());
    // After the invocations in flight (below), before the services they use.
    stoppers.push(async () => pool?.stop());
    // Runs after the API and the pollers have stopped (stoppers run in reverse): no new work
    // starts, S3 events already delivered and invocations in flight finish, then the services stop.
    stoppers.push(async () => {
      await s3.drain();
      stopping = true;
      // the give-up timer is cleared once they finish, or it would hold the process 10 s after stop()
      let giveUp: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled([...inFlight]),
        new Promise((resolve) => (giveUp = setTimeout(resolve, 10_000))),
      ]);
      clearTimeout(giveUp);
    });

    const env: Record<string, string> = {
      AWS_REGION: region,
      AWS_ACCESS_KEY_ID: localCredentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: localCredentials.secretAccessKey,
      AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
      AWS_ENDPOINT_URL_S3: s3.url,
      AWS_ENDPOINT_URL_SQS: sqsServer.url,
      S3_FORCE_PATH_STYLE: 'true',
      TABLE_NAME: tableName,
      BUCKET_NAME: bucketName,
      // docs/api.md: the local runtime delivers webhooks to local receivers.
      ALLOW_PRIVATE_CALLBACKS: process.env.ALLOW_PRIVATE_CALLBACKS ?? 'true',
      // No SES here: invite emails are written to DATA_DIR/outbox as .eml files (INVITE_OUTBOX_DIR=''
      // keeps them pending, as a deployment without inviteFrom does).
      INVITE_OUTBOX_DIR: process.env.INVITE_OUTBOX_DIR ?? path.join(dataDir, 'outbox'),
      // No KMS here: sealed secrets use a key file of this data directory (made 0600 on first use).
      SECRETS_LOCAL_KEY_FILE: process.env.SECRETS_LOCAL_KEY_FILE ?? path.join(dataDir, 'secrets.key'),
      ...options.env,
    };
    const sqsClient = new SQSClient({ region, endpoint: sqsServer.url, credentials: localCredentials });
    stoppers.push(async () => sqsClient.destroy());
    const queueArns = new Map<string, string>();
    for (const queue of queues) {
      const dlq = await createQueue(sqsClient, `${localResources.queueName(queue.name)}-dlq`, {
        MessageRetentionPeriod: String(deadLetterRetentionSeconds),
        VisibilityTimeout: String(queue.visibilityTimeoutSeconds),
      });
      queueArns.set(`${queue.name}-dlq`, dlq.arn);
      const main = await createQueue(sqsClient, localResources.queueName(queue.name), {
        VisibilityTimeout: String(queue.visibilityTimeoutSeconds),
        MessageRetentionPeriod: String(queue.retentionSeconds),
        RedrivePolicy: JSON.stringify({
          deadLetterTargetArn: dlq.arn,
          maxReceiveCount: queue.maxReceiveCount,
        }),
      });
      queueArns.set(queue.name, main.arn);
      env[queueUrlEnvName(queue.name)] = main.url;
      env[queueDlqUrlEnvName(queue.name)] = dlq.url;
    }

    // Handlers read their settings from process.env, exactly as in Lambda.
    Object.assign(process.env, env);
    resetServiceClients();
    await ensureTable(dynamo.endpoint, tableName);
    for (const spec of functions) {
      if (workerCount === 0 || !workerFunctions.has(spec.name))
        handlers.set(spec.name, loadHandler(spec.entry));
    }
    for (const spec of extraFunctions) handlers.set(spec.name, loadHandler(spec.entry));
    // Data written by an earlier release is brought up to date before any handler reads it (a new data
    // directory only records the migrations as done).
    for (const outcome of await runPendingMigrations(systemClock))
      if (outcome.state === 'ran') logger.info(`migration ${outcome.name}: ${outcome.summary}`);
    if (workerCount > 0) {
      pool = await startWorkerPool({
        size: workerCount,
        functions: Object.fromEntries(
          functions
            .filter((spec) => workerFunctions.has(spec.name))
            .map((spec) => [
              spec.name,
              {
                entry: path.join(repositoryRoot, spec.entry),
                timeoutSeconds: spec.timeoutSeconds,
                memoryMb: spec.memoryMb,
              },
            ]),
        ),
        env: process.env,
        ...(options.recordAwsCalls ? { onAwsCall: (call: AwsCall) => awsCalls.push(call) } : {}),
      });
    }
    // Nothing of an earlier process runs any more: the leases its workers held on jobs are void, so the
    // messages released for redelivery can take the work over at once.
    // On every restart, not only when messages were in flight: a crash that lands between a message's
    // delete and the end of the work it started leaves a lease and nothing in flight (the search reads
    // the whole table; a clean stop leaves no lease, so then it finds nothing).
    // So are the MX session leases its probe batches held: left alone they would keep each host's slots
    // taken for a lease's lifetime (150 s) while the batches released for redelivery wait for them.
    if (!fresh) await Promise.all([releaseOrphanedLeases(), voidAllSessionLeases()]);
    // Uploads answered before a crash whose scan never finished are scanned now (the scan is idempotent).
    if (options.serve !== false) s3.deliverPending();

    let seeded = false;
    if (fresh && options.seed !== false) {
      const accounts = await seedDemoAccounts();
      await seedDemoWorkspace(accounts);
      seeded = true;
    }

    let baseUrl = '';
    if (options.serve !== false) {
      for (const consumer of queueConsumers) {
        const queueKey = consumer.deadLetters ? `${consumer.queue}-dlq` : consumer.queue;
        const url =
          env[consumer.deadLetters ? queueDlqUrlEnvName(consumer.queue) : queueUrlEnvName(consumer.queue)];
        const poller = startQueuePoller({
          client: sqsClient,
          queueUrl: url!,
          queueArn: queueArns.get(queueKey)!,
          batchSize: consumer.batchSize,
          maxConcurrency: consumer.maxConcurrency,
          functionName: consumer.function,
          timeoutSeconds: functionByName(consumer.function).timeoutSeconds,
          handler: (event) => invoke(consumer.function, event) as never,
          // A batch that failed because DynamoDB Local died under it is retried once it is back, not
          // after the queue's visibility timeout.
          retryAtOnce: (startedAt) => dynamo.failedSince(startedAt),
        });
        stoppers.push(() => poller.stop());
      }
      // EventBridge Scheduler's stand-in: a timer per schedule, stopped before the invocations drain.
      const timers = startScheduleTimers({
        schedules: options.schedules ?? wiringSchedules,
        env: process.env,
        invoke,
      });
      stoppers.push(() => timers.stop());
      const api: ApiGateway = await startApiGateway({
        routes: [...routes, ...preflightRoutes],
        defaultFunction: defaultRouteFunction,
        invoke,
        port: options.port,
        host,
        dependencies: {
          available: () => dynamo.available(),
          failedSince: (since) => dynamo.failedSince(since),
        },
        site: consoleSite(new URL(s3.url).origin),
      });
      stoppers.push(() => api.close());
      baseUrl = api.url;
      writeFileSync(runtimeFile(dataDir), JSON.stringify({ pid: process.pid, baseUrl, env }, null, 2));
      stoppers.push(async () => rmSync(runtimeFile(dataDir), { force: true }));
    }

    return {
      baseUrl,
      endpoints: { dynamoDb: dynamo.endpoint, s3: s3.url, sqs: sqsServer.url },
      env,
      seeded,
      invoke,
      awsCalls,
      ...(pool ? { workers: pool } : {}),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The S3 port file of a data directory: the port its upload URLs carry. */
function s3PortFile(dataDir: string): string {
  return path.join(dataDir, 's3-port');
}

async function startS3OnStablePort(
  dataDir: string,
  ports: Pick<LocalRuntimeOptions, 's3Port'>,
  options: Omit<LocalS3Options, 'port'>,
): Promise<LocalS3> {
  let s3: LocalS3;
  if (ports.s3Port !== undefined) {
    s3 = await startLocalS3({ ...options, port: ports.s3Port });
  } else {
    const file = s3PortFile(dataDir);
    const remembered = existsSync(file) ? Number(readFileSync(file, 'utf8')) : undefined;
    const wanted = remembered !== undefined && Number.isInteger(remembered) ? remembered : 0;
    try {
      s3 = await startLocalS3({ ...options, port: wanted });
    } catch (error) {
      if (!(error instanceof PortInUseError)) throw error;
      process.stderr.write(
        `mailvet: the local S3's port ${wanted} is taken; using another one${remembered === undefined ? '' : ' (upload URLs handed out before this start will not work)'}. Set S3_PORT to insist on one.\n`,
      );
      s3 = await startLocalS3({ ...options, port: 0 });
    }
  }
  writeFileSync(s3PortFile(dataDir), String(s3.port));
  return s3;
}

async function createQueue(
  client: SQSClient,
  name: string,
  attributes: Record<string, string>,
): Promise<{ url: string; arn: string }> {
  const { QueueUrl } = await client.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes }));
  const { Attributes } = await client.send(
    new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }),
  );
  return { url: QueueUrl!, arn: Attributes!.QueueArn! };
}

function loadHandler(entry: string): Handler {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const module = require(path.join(repositoryRoot, entry)) as { handler?: Handler };
  if (typeof module.handler !== 'function') throw new Error(`${entry} does not export a handler`);
  return module.handler;
}

/** Runs a function once on this thread with a Lambda-like context. */
async function invokeFunction(
  handlers: Map<string, Handler>,
  spec: FunctionSpec,
  event: unknown,
): Promise<unknown> {
  const { name, timeoutSeconds, memoryMb } = spec;
  const handler = handlers.get(name);
  if (!handler) throw new Error(`Function ${name} is not loaded`);
  const context = lambdaContext(name, timeoutSeconds * 1000, memoryMb);
  // The function's AWS calls are attributed to it, though every function shares this thread.
  return runAsFunction(name, () => handler(event, context));
}

/**
 * Fails an invocation like Lambda when it outlives the function's timeout (the work itself cannot be
 * stopped, on this thread or in a worker).
 */
async function withTimeout(spec: FunctionSpec, invocation: Promise<unknown>): Promise<unknown> {
  const { timeoutSeconds } = spec;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`Task timed out after ${timeoutSeconds} seconds`)),
      timeoutSeconds * 1000,
    );
  });
  try {
    return await Promise.race([invocation, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * S3 invokes subscribed functions asynchronously; like Lambda's async invoke, a failed invocation is
 * retried `retryAttempts` times, then the trigger's on-failure function gets Lambda's destination record.
 */
async function dispatchS3Event(invoke: (name: string, event: unknown) => Promise<unknown>, event: S3Event) {
  for (const record of event.Records) {
    for (const trigger of bucketTriggers) {
      if (!record.s3.object.key.startsWith(trigger.prefix)) continue;
      const single: S3Event = { Records: [record] };
      const attempts = 1 + trigger.retryAttempts;
      for (let attempt = 1; attempt <= attempts; attempt++) {
        try {
          await invoke(trigger.function, single);
          break;
        } catch (error) {
          if (attempt < attempts) {
            await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
            continue;
          }
          logger.error(`S3 event handler failed ${attempts} times`, error, { function: trigger.function });
          await invoke(trigger.onFailure, onFailureRecord(trigger.function, single, error, attempts)).catch(
            (failure: unknown) =>
              logger.error('on-failure destination failed', failure, { function: trigger.onFailure }),
          );
        }
      }
    }
  }
}

/** The record Lambda sends an on-failure destination after an async invocation's retries. */
function onFailureRecord(functionName: string, event: S3Event, error: unknown, attempts: number) {
  return {
    version: '1.0',
    timestamp: new Date().toISOString(),
    requestContext: {
      requestId: randomUUID(),
      functionArn: `arn:aws:lambda:local:000000000000:function:${functionName}:$LATEST`,
      condition: 'RetriesExhausted',
      approximateInvokeCount: attempts,
    },
    requestPayload: event,
    responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
    responsePayload: { errorType: (error as Error)?.name ?? 'Error', errorMessage: String(error) },
  };
}

export type { QueueName };
