// Records the AWS calls the functions make, each with the function that made it, when something asks
// for them: the local runtime, whose functions share one process (their IAM policies are checked
// against these records in the tests, local/iam/), and the call-count bench. In Lambda nothing ever
// asks, and the middleware only looks at one variable.
import { AsyncLocalStorage } from 'node:async_hooks';
import { systemStopwatch } from '../clock';

export type AwsService = 'dynamodb' | 's3' | 'sqs';

/** One call as the SDK sent it: only the fields that name what it touched. */
export interface AwsCall {
  /** The wiring name of the function that made it; undefined for work outside any function. */
  function?: string;
  /** Which invocation of the function made it (a number counted up per process). */
  invocation?: number;
  /** When it was sent and how long the answer took (ms, systemStopwatch: monotonic, not a date). */
  at: number;
  ms: number;
  service: AwsService;
  /** The SDK operation, e.g. `PutItem`, `HeadObject`, `SendMessageBatch`. */
  operation: string;
  /** What the call named: table, index, bucket, key, prefix, version, queue URL, transaction items. */
  target: CallTarget;
  /** The HTTP status the service answered (404 for a missing key); undefined when no answer came. */
  status?: number;
  /** A presigned URL was signed (the caller's role authorizes whoever uses it); nothing was sent. */
  presigned?: boolean;
}

export interface CallTarget {
  tables?: string[];
  indexName?: string;
  /** Per item of a transaction: its kind (Put, Update, Delete, ConditionCheck, Get) and table. */
  transactItems?: { kind: string; table: string }[];
  /** Items (batch writes or gets, transactions) or messages (SQS batches) in the call. */
  entries?: number;
  bucket?: string;
  key?: string;
  prefix?: string;
  versionId?: string;
  copySource?: string;
  queueUrl?: string;
  /**
   * DynamoDB: the items the call names, as `<pk> <sk>` (Key, Item, a batch's or a transaction's keys),
   * and for a Query the string values of its key condition.
   */
  items?: string[];
}

type Sink = (call: AwsCall) => void;

const invocation = new AsyncLocalStorage<{ function: string; invocation: number }>();
let invocations = 0;
let sink: Sink | undefined;

/** Start (or with undefined, stop) handing every call to `to`. */
export function recordAwsCalls(to: Sink | undefined): void {
  sink = to;
  // An enabled AsyncLocalStorage makes Node 20 run a hook on every promise of the process (a few per
  // cent of the local API's CPU): it stays off while nobody records.
  if (!to) invocation.disable();
}

/**
 * Runs `work` as function `name`: the calls it makes, however deep or late, are attributed to it.
 * Only while calls are recorded; an invocation started before the recording began has no function.
 */
export function runAsFunction<T>(name: string, work: () => T): T {
  if (!sink) return work();
  return invocation.run({ function: name, invocation: ++invocations }, work);
}

type Input = Record<string, unknown>;

function targetOf(input: Input): CallTarget {
  const target: CallTarget = {};
  if (typeof input.TableName === 'string') target.tables = [input.TableName];
  if (typeof input.IndexName === 'string') target.indexName = input.IndexName;
  if (input.RequestItems && typeof input.RequestItems === 'object') {
    const requests = input.RequestItems as Record<string, unknown[] | { Keys?: unknown[] }>;
    target.tables = Object.keys(requests);
    target.entries = Object.values(requests).reduce<number>(
      (n, r) => n + (Array.isArray(r) ? r.length : (r.Keys?.length ?? 0)),
      0,
    );
  }
  if (Array.isArray(input.TransactItems)) {
    target.transactItems = (input.TransactItems as Record<string, { TableName?: string }>[]).map((item) => {
      const [kind, body] = Object.entries(item)[0] ?? ['?', {}];
      return { kind, table: body?.TableName ?? '' };
    });
    target.entries = target.transactItems.length;
  }
  if (Array.isArray(input.Entries)) target.entries = input.Entries.length;
  if (typeof input.Bucket === 'string') target.bucket = input.Bucket;
  if (typeof input.Key === 'string') target.key = input.Key;
  if (typeof input.Prefix === 'string') target.prefix = input.Prefix;
  if (typeof input.VersionId === 'string') target.versionId = input.VersionId;
  if (typeof input.CopySource === 'string') target.copySource = input.CopySource;
  if (typeof input.QueueUrl === 'string') target.queueUrl = input.QueueUrl;
  const items = namedItems(input);
  if (items.length > 0) target.items = items;
  return target;
}

/** An attribute value as lib-dynamodb gives it (plain) or as the client marshalled it ({ S }). */
const stringOf = (value: unknown): string | undefined =>
  typeof value === 'string'
    ? value
    : typeof (value as { S?: unknown })?.S === 'string'
      ? (value as { S: string }).S
      : undefined;

function itemName(key: unknown): string[] {
  if (!key || typeof key !== 'object') return [];
  const { pk, sk } = key as Record<string, unknown>;
  const [p, s] = [stringOf(pk), stringOf(sk)];
  return p === undefined || s === undefined ? [] : [`${p} ${s}`];
}

function namedItems(input: Input): string[] {
  const named = [...itemName(input.Key), ...itemName(input.Item)];
  if (input.RequestItems && typeof input.RequestItems === 'object')
    for (const request of Object.values(input.RequestItems as Record<string, unknown>)) {
      if (Array.isArray(request))
        for (const r of request as { PutRequest?: { Item?: unknown }; DeleteRequest?: { Key?: unknown } }[])
          named.push(...itemName(r.PutRequest?.Item), ...itemName(r.DeleteRequest?.Key));
      else for (const key of (request as { Keys?: unknown[] }).Keys ?? []) named.push(...itemName(key));
    }
  if (Array.isArray(input.TransactItems))
    for (const item of input.TransactItems as Record<string, { Key?: unknown; Item?: unknown }>[])
      for (const body of Object.values(item)) named.push(...itemName(body?.Key), ...itemName(body?.Item));
  if (typeof input.KeyConditionExpression === 'string' && input.ExpressionAttributeValues)
    for (const value of Object.values(input.ExpressionAttributeValues as Record<string, unknown>)) {
      const text = stringOf(value);
      if (text !== undefined) named.push(text);
    }
  return named;
}

interface MiddlewareStack {
  add(
    middleware: (
      next: (args: { input: Input }) => Promise<{ output?: unknown }>,
      context: { commandName?: string },
    ) => (args: { input: Input }) => Promise<{ output?: unknown }>,
    options: { step: 'initialize'; name: string; override?: boolean },
  ): void;
}

const statusOf = (value: unknown): number | undefined =>
  (value as { $metadata?: { httpStatusCode?: number } } | undefined)?.$metadata?.httpStatusCode;

/** Adds the recording middleware to a client (any AWS SDK v3 client: they share the stack's shape). */
export function recordCallsOf(client: { middlewareStack: unknown }, service: AwsService): void {
  (client.middlewareStack as MiddlewareStack).add(
    (next, context) => async (args) => {
      const to = sink;
      if (!to) return next(args);
      const current = invocation.getStore();
      const call: AwsCall = {
        function: current?.function,
        invocation: current?.invocation,
        at: systemStopwatch(),
        ms: 0,
        service,
        operation: (context.commandName ?? 'Unknown').replace(/Command$/, ''),
        target: targetOf(args.input),
      };
      try {
        const out = await next(args);
        // getSignedUrl answers from inside the stack with the signed request, sending nothing.
        if ((out.output as { presigned?: unknown } | undefined)?.presigned !== undefined)
          call.presigned = true;
        else call.status = statusOf(out.output);
        return out;
      } catch (error) {
        call.status = statusOf(error);
        throw error;
      } finally {
        call.ms = systemStopwatch() - call.at;
        to(call);
      }
    },
    { step: 'initialize', name: 'mailvetCallRecording', override: true },
  );
}
