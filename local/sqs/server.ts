// A small SQS server speaking the AWS JSON 1.0 protocol of @aws-sdk/client-sqs v3, for the local runtime.
//
// Behaviour follows AWS standard queues where the local runtime can observe it: visibility timeouts,
// receive counts, delays, long polling, redrive to a dead-letter queue at receive time, retention, and
// errors that the SDK turns into its typed exceptions. Deliberate differences are noted where they live.
// No signature checks: any credentials are accepted.
//
// With a dataDir every change is journaled (../journal.ts) before its request is answered: a message is on
// disk before SendMessage answers, a delete before DeleteMessage answers, a receive's visibility change
// before ReceiveMessage answers.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Journal } from '../journal';

export interface SqsServerOptions {
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  accountId?: string;
  region?: string;
  /** When set, queues and messages are kept in `<dataDir>/sqs.json` and `sqs.log` across restarts. */
  dataDir?: string;
  /** fdatasync each journal write (default true); false survives a crash of this process, not of the OS. */
  fsync?: boolean;
  /**
   * Make messages that were in flight when the previous process stopped visible at once (default false).
   * Right when no consumer can outlive the server (the local runtime, whose pollers live in the same
   * process): a message received by a consumer that died would otherwise wait out its visibility timeout.
   * Visibility a consumer chose itself (ChangeMessageVisibility, e.g. a retry backoff) is kept.
   */
  releaseInFlightOnStart?: boolean;
  /** Fold the journal into the snapshot past this size (default 8 MiB). */
  compactBytes?: number;
}

export interface SqsServer {
  /** Endpoint for SQSClient, e.g. http://127.0.0.1:4566 */
  url: string;
  port: number;
  accountId: string;
  region: string;
  queueUrl(name: string): string;
  queueArn(name: string): string;
  /** Messages made visible at start because they were in flight when the previous process died. */
  releasedOnStart: number;
  close(): Promise<void>;
}

interface MessageAttributeValue {
  DataType: string;
  StringValue?: string;
  /** Base64, as the JSON protocol carries blobs. */
  BinaryValue?: string;
}

interface StoredMessage {
  id: string;
  body: string;
  md5OfBody: string;
  messageAttributes?: Record<string, MessageAttributeValue>;
  md5OfMessageAttributes?: string;
  systemAttributes: Record<string, string>;
  senderId: string;
  sentTimestamp: number;
  /** Epoch ms from which the message may be received (after a delay or a visibility timeout). */
  visibleAt: number;
  receiveCount: number;
  firstReceiveTimestamp?: number;
  /** The handle of the latest receive; only it deletes the message or changes its visibility. */
  receiptHandle?: string;
  /** Invisible because a receive took it (not because its consumer chose a visibility timeout). */
  held?: boolean;
}

type MessageState = Pick<
  StoredMessage,
  'visibleAt' | 'receiveCount' | 'firstReceiveTimestamp' | 'receiptHandle' | 'held'
>;
type QueueMetadata = Pick<Queue, 'name' | 'attributes' | 'createdTimestamp' | 'lastModifiedTimestamp'>;

/** A state record leaves out what is undefined (JSON has no undefined): these are what it means. */
const stateDefaults: MessageState = {
  visibleAt: 0,
  receiveCount: 0,
  firstReceiveTimestamp: undefined,
  receiptHandle: undefined,
  held: false,
};

/** One journal record: each states a result, so replaying it onto a state that has it changes nothing. */
type JournalRecord =
  | { t: 'queue'; queue: QueueMetadata }
  | { t: 'dropQueue'; name: string }
  | { t: 'purge'; name: string }
  | { t: 'put'; q: string; m: StoredMessage }
  | { t: 'state'; q: string; id: string; s: MessageState }
  | { t: 'remove'; q: string; id: string };

interface Queue {
  name: string;
  attributes: Record<string, string>;
  createdTimestamp: number;
  lastModifiedTimestamp: number;
  messages: StoredMessage[];
  /** Long polls of ReceiveMessage waiting for a message on this queue. */
  waiters: Set<() => void>;
  /** Pending wake-up for the earliest invisible message while someone waits. */
  timer?: NodeJS.Timeout;
}

/** An error in the AWS JSON shape; `queryCode` is what the SDK (awsQueryCompatible) maps to its class. */
class SqsError extends Error {
  constructor(
    readonly type: string,
    readonly queryCode: string,
    message: string,
    readonly status = 400,
    readonly fault: 'Sender' | 'Receiver' = 'Sender',
  ) {
    super(message);
  }
}

const errors = {
  queueDoesNotExist: () =>
    new SqsError(
      'QueueDoesNotExist',
      'AWS.SimpleQueueService.NonExistentQueue',
      'The specified queue does not exist.',
    ),
  queueNameExists: (name: string) =>
    new SqsError(
      'QueueNameExists',
      'QueueAlreadyExists',
      `A queue already exists with the same name and a different value for attribute(s): ${name}`,
    ),
  invalidParameter: (message: string) =>
    new SqsError('InvalidParameterValue', 'InvalidParameterValue', message),
  missingParameter: (name: string) =>
    new SqsError('MissingParameter', 'MissingParameter', `The request must contain the parameter ${name}.`),
  invalidAttributeName: (name: string) =>
    new SqsError('InvalidAttributeName', 'InvalidAttributeName', `Unknown Attribute ${name}.`),
  receiptHandleIsInvalid: (handle: string) =>
    new SqsError(
      'ReceiptHandleIsInvalid',
      'ReceiptHandleIsInvalid',
      `The input receipt handle "${handle}" is not a valid receipt handle.`,
      404,
    ),
  messageNotInflight: () =>
    new SqsError(
      'MessageNotInflight',
      'AWS.SimpleQueueService.MessageNotInflight',
      'Message is not in flight.',
    ),
  emptyBatch: () =>
    new SqsError(
      'EmptyBatchRequest',
      'AWS.SimpleQueueService.EmptyBatchRequest',
      'There should be at least one entry in the request.',
    ),
  tooManyEntries: () =>
    new SqsError(
      'TooManyEntriesInBatchRequest',
      'AWS.SimpleQueueService.TooManyEntriesInBatchRequest',
      'Maximum number of entries per request are 10.',
    ),
  idsNotDistinct: () =>
    new SqsError(
      'BatchEntryIdsNotDistinct',
      'AWS.SimpleQueueService.BatchEntryIdsNotDistinct',
      'Two or more batch entries in the request have the same Id.',
    ),
  invalidBatchEntryId: () =>
    new SqsError(
      'InvalidBatchEntryId',
      'AWS.SimpleQueueService.InvalidBatchEntryId',
      'A batch entry id can only contain alphanumeric characters, hyphens and underscores. It can be at most 80 letters long.',
    ),
  unsupported: (what: string) =>
    new SqsError(
      'UnsupportedOperation',
      'AWS.SimpleQueueService.UnsupportedOperation',
      `${what} is not supported.`,
    ),
};

const defaults: Record<string, string> = {
  VisibilityTimeout: '30',
  DelaySeconds: '0',
  MessageRetentionPeriod: '345600',
  ReceiveMessageWaitTimeSeconds: '0',
  MaximumMessageSize: '262144',
};

/** Attributes CreateQueue and SetQueueAttributes accept, with their allowed integer range. */
const numericAttributes: Record<string, [number, number]> = {
  VisibilityTimeout: [0, 43200],
  DelaySeconds: [0, 900],
  MessageRetentionPeriod: [60, 1209600],
  ReceiveMessageWaitTimeSeconds: [0, 20],
  MaximumMessageSize: [1024, 1048576],
};
const otherWritableAttributes = new Set([
  'RedrivePolicy',
  'RedriveAllowPolicy',
  'Policy',
  'KmsMasterKeyId',
  'KmsDataKeyReusePeriodSeconds',
  'SqsManagedSseEnabled',
]);

const systemAttributeNames = [
  'SenderId',
  'SentTimestamp',
  'ApproximateReceiveCount',
  'ApproximateFirstReceiveTimestamp',
  'AWSTraceHeader',
  'DeadLetterQueueSourceArn',
];

const batchIdPattern = /^[A-Za-z0-9_-]{1,80}$/;

/** MD5 of the message attributes as AWS computes it (and as SDKs that verify it recompute it). */
export function md5OfMessageAttributes(attributes: Record<string, MessageAttributeValue>): string {
  const hash = createHash('md5');
  const lengthPrefixed = (bytes: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(bytes.length);
    hash.update(length);
    hash.update(bytes);
  };
  // AWS sorts by name in UTF-16 code unit order (Java's String order), as Array.sort does.
  for (const name of Object.keys(attributes).sort()) {
    const value = attributes[name]!;
    lengthPrefixed(Buffer.from(name, 'utf8'));
    lengthPrefixed(Buffer.from(value.DataType, 'utf8'));
    if (value.DataType.startsWith('Binary')) {
      hash.update(Buffer.from([2]));
      lengthPrefixed(Buffer.from(value.BinaryValue ?? '', 'base64'));
    } else {
      hash.update(Buffer.from([1]));
      lengthPrefixed(Buffer.from(value.StringValue ?? '', 'utf8'));
    }
  }
  return hash.digest('hex');
}

function md5(text: string): string {
  return createHash('md5').update(text, 'utf8').digest('hex');
}

function integerParameter(value: unknown, name: string, min: number, max: number): number | undefined {
  if (value === undefined || value === null) return undefined;
  const n = typeof value === 'string' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max) {
    throw errors.invalidParameter(
      `Value ${String(value)} for parameter ${name} is invalid. Reason: Must be between ${min} and ${max}.`,
    );
  }
  return n;
}

function requiredString(input: Record<string, unknown>, name: string): string {
  const value = input[name];
  if (typeof value !== 'string' || value === '') throw errors.missingParameter(name);
  return value;
}

/** SQS accepts only these characters in a body: #x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD | #x10000+. */
function validBodyCharacters(body: string): boolean {
  // eslint-disable-next-line no-control-regex
  return !/[^\u0009\u000A\u000D\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u.test(body);
}

/** The HTTP client of one request, so a long poll can notice that it went away. */
interface ClientConnection {
  closed: Promise<void>;
  gone(): boolean;
}

interface PersistedState {
  version: 1;
  queues: Array<Omit<Queue, 'waiters' | 'timer'>>;
}

export async function startSqsServer(options: SqsServerOptions = {}): Promise<SqsServer> {
  const host = options.host ?? '127.0.0.1';
  const accountId = options.accountId ?? '000000000000';
  const region = options.region ?? 'us-east-1';
  const queues = new Map<string, Queue>();
  let baseUrl = '';
  let closed = false;

  const arnOf = (name: string) => `arn:aws:sqs:${region}:${accountId}:${name}`;
  const urlOf = (name: string) => `${baseUrl}/${accountId}/${name}`;

  let journal: Journal<PersistedState, JournalRecord> | undefined;
  let releasedOnStart = 0;
  if (options.dataDir) {
    mkdirSync(options.dataDir, { recursive: true });
    const { snapshot, records } = Journal.recover<PersistedState, JournalRecord>(options.dataDir, 'sqs');
    for (const q of snapshot?.queues ?? []) queues.set(q.name, { ...q, waiters: new Set() });
    for (const record of records) replay(record);
    if (options.releaseInFlightOnStart) releasedOnStart = releaseInFlight();
    journal = await Journal.open<PersistedState, JournalRecord>(
      { dir: options.dataDir, name: 'sqs', fsync: options.fsync ?? true, compactBytes: options.compactBytes },
      () => ({
        version: 1,
        queues: [...queues.values()].map(({ waiters: _w, timer: _t, ...rest }) => rest),
      }),
    );
  }

  function replay(record: JournalRecord): void {
    switch (record.t) {
      case 'queue': {
        const existing = queues.get(record.queue.name);
        if (existing) Object.assign(existing, record.queue);
        else queues.set(record.queue.name, { ...record.queue, messages: [], waiters: new Set() });
        return;
      }
      case 'dropQueue':
        queues.delete(record.name);
        return;
      case 'purge': {
        const queue = queues.get(record.name);
        if (queue) queue.messages = [];
        return;
      }
      case 'put': {
        const queue = queues.get(record.q);
        if (!queue) return;
        const index = queue.messages.findIndex((m) => m.id === record.m.id);
        if (index >= 0) queue.messages[index] = record.m;
        else queue.messages.push(record.m);
        return;
      }
      case 'state': {
        const message = queues.get(record.q)?.messages.find((m) => m.id === record.id);
        if (message) Object.assign(message, stateDefaults, record.s);
        return;
      }
      case 'remove': {
        const queue = queues.get(record.q);
        if (queue) queue.messages = queue.messages.filter((m) => m.id !== record.id);
        return;
      }
    }
  }

  /** A message received by a consumer of an earlier process: no one holds it now. */
  function releaseInFlight(): number {
    const now = Date.now();
    let released = 0;
    for (const queue of queues.values())
      for (const message of queue.messages)
        if (message.held && message.visibleAt > now) {
          message.visibleAt = now;
          message.held = false;
          released += 1;
        }
    return released;
  }

  const log = (record: JournalRecord) => journal?.append(record);
  const logQueue = (queue: Queue) =>
    log({
      t: 'queue',
      queue: {
        name: queue.name,
        attributes: queue.attributes,
        createdTimestamp: queue.createdTimestamp,
        lastModifiedTimestamp: queue.lastModifiedTimestamp,
      },
    });
  const logState = (queue: Queue, m: StoredMessage) =>
    log({
      t: 'state',
      q: queue.name,
      id: m.id,
      s: {
        visibleAt: m.visibleAt,
        receiveCount: m.receiveCount,
        firstReceiveTimestamp: m.firstReceiveTimestamp,
        receiptHandle: m.receiptHandle,
        held: m.held,
      },
    });

  function queueFromUrl(input: Record<string, unknown>): Queue {
    const queueUrl = requiredString(input, 'QueueUrl');
    // Any host is fine (localhost vs 127.0.0.1, a restart on another port); account and name must match.
    let path: string;
    try {
      path = new URL(queueUrl).pathname;
    } catch {
      path = queueUrl;
    }
    const [account, name, ...rest] = path.split('/').filter(Boolean);
    const queue = name && account === accountId && rest.length === 0 ? queues.get(name) : undefined;
    if (!queue) throw errors.queueDoesNotExist();
    return queue;
  }

  function queueFromArn(arn: string): Queue | undefined {
    const prefix = `arn:aws:sqs:${region}:${accountId}:`;
    return arn.startsWith(prefix) ? queues.get(arn.slice(prefix.length)) : undefined;
  }

  function num(queue: Queue, name: string): number {
    return Number(queue.attributes[name] ?? defaults[name] ?? 0);
  }

  function redrivePolicy(queue: Queue): { target: Queue; maxReceiveCount: number } | undefined {
    const text = queue.attributes.RedrivePolicy;
    if (!text) return undefined;
    const policy = JSON.parse(text) as { deadLetterTargetArn: string; maxReceiveCount: number | string };
    const target = queueFromArn(policy.deadLetterTargetArn);
    // A deleted dead-letter queue leaves the messages where they are, as AWS does.
    return target && { target, maxReceiveCount: Number(policy.maxReceiveCount) };
  }

  function validateAttributes(attributes: Record<string, unknown>, selfName: string): Record<string, string> {
    const result: Record<string, string> = {};
    for (const [name, raw] of Object.entries(attributes)) {
      const value = String(raw);
      const range = numericAttributes[name];
      if (range) {
        integerParameter(value, name, range[0], range[1]);
        result[name] = String(Number(value));
      } else if (name === 'RedrivePolicy') {
        if (value === '') {
          result[name] = value;
          continue;
        }
        let policy: { deadLetterTargetArn?: unknown; maxReceiveCount?: unknown };
        try {
          policy = JSON.parse(value) as typeof policy;
        } catch {
          throw errors.invalidParameter(
            `Value ${value} for parameter RedrivePolicy is invalid. Reason: Invalid JSON.`,
          );
        }
        const count = Number(policy.maxReceiveCount);
        if (
          typeof policy.deadLetterTargetArn !== 'string' ||
          !Number.isInteger(count) ||
          count < 1 ||
          count > 1000
        ) {
          throw errors.invalidParameter(
            `Value ${value} for parameter RedrivePolicy is invalid. Reason: Redrive policy requires deadLetterTargetArn and maxReceiveCount (1 to 1000).`,
          );
        }
        const target = queueFromArn(policy.deadLetterTargetArn);
        if (!target || target.name === selfName) {
          throw errors.invalidParameter(
            `Value ${value} for parameter RedrivePolicy is invalid. Reason: Dead letter target does not exist.`,
          );
        }
        // Stored the way AWS returns it: maxReceiveCount as a number.
        result[name] = JSON.stringify({
          deadLetterTargetArn: policy.deadLetterTargetArn,
          maxReceiveCount: count,
        });
      } else if (otherWritableAttributes.has(name)) {
        result[name] = value;
      } else if (name === 'FifoQueue' || name === 'ContentBasedDeduplication') {
        throw errors.unsupported('FIFO queues');
      } else {
        throw errors.invalidAttributeName(name);
      }
    }
    return result;
  }

  /** Wakes long polls on the queue now, and again when its next invisible message turns visible. */
  function notify(queue: Queue): void {
    for (const wake of [...queue.waiters]) wake();
  }

  function armTimer(queue: Queue, now: number): void {
    if (queue.timer) clearTimeout(queue.timer);
    queue.timer = undefined;
    if (queue.waiters.size === 0) return;
    let next = Infinity;
    for (const m of queue.messages) if (m.visibleAt > now && m.visibleAt < next) next = m.visibleAt;
    if (next === Infinity) return;
    queue.timer = setTimeout(() => notify(queue), next - now + 5);
    queue.timer.unref();
  }

  function dropExpired(queue: Queue, now: number): void {
    const retentionMs = num(queue, 'MessageRetentionPeriod') * 1000;
    const kept = queue.messages.filter((m) => m.sentTimestamp + retentionMs > now);
    if (kept.length !== queue.messages.length) {
      for (const m of queue.messages) if (!kept.includes(m)) log({ t: 'remove', q: queue.name, id: m.id });
      queue.messages = kept;
    }
  }

  function moveToDeadLetterQueue(message: StoredMessage, source: Queue, target: Queue, now: number): void {
    // AWS keeps the message id, sent timestamp and receive count, and records where the message came from.
    const moved: StoredMessage = {
      ...message,
      systemAttributes: { ...message.systemAttributes, DeadLetterQueueSourceArn: arnOf(source.name) },
      visibleAt: now,
      receiptHandle: undefined,
      held: false,
    };
    target.messages.push(moved);
    // Put first: a crash between the two records leaves the message in both queues, never in neither.
    log({ t: 'put', q: target.name, m: moved });
    log({ t: 'remove', q: source.name, id: message.id });
    notify(target);
  }

  /**
   * Takes up to `max` visible messages, redriving the ones received too often on the way. `undo` puts
   * them back as they were, for a receive whose client is gone before the answer leaves.
   */
  function takeMessages(
    queue: Queue,
    max: number,
    visibilityTimeout: number,
  ): { taken: StoredMessage[]; undo: () => void } {
    const now = Date.now();
    dropExpired(queue, now);
    const redrive = redrivePolicy(queue);
    const taken: StoredMessage[] = [];
    const before: MessageState[] = [];
    for (const message of [...queue.messages]) {
      if (taken.length >= max) break;
      if (message.visibleAt > now) continue;
      if (redrive && message.receiveCount >= redrive.maxReceiveCount) {
        queue.messages.splice(queue.messages.indexOf(message), 1);
        moveToDeadLetterQueue(message, queue, redrive.target, now);
        continue;
      }
      const { receiveCount, firstReceiveTimestamp, visibleAt, receiptHandle: previousHandle, held } = message;
      before.push({ receiveCount, firstReceiveTimestamp, visibleAt, receiptHandle: previousHandle, held });
      message.receiveCount += 1;
      message.firstReceiveTimestamp ??= now;
      message.visibleAt = now + visibilityTimeout * 1000;
      message.receiptHandle = receiptHandle(queue.name, message.id);
      message.held = true;
      logState(queue, message);
      taken.push(message);
    }
    const handles = taken.map((m) => m.receiptHandle);
    const undo = () => {
      taken.forEach((message, i) => {
        // Only if no later receive took the message since.
        if (!queue.messages.includes(message) || message.receiptHandle !== handles[i]) return;
        Object.assign(message, before[i]);
        if (message.firstReceiveTimestamp === undefined) delete message.firstReceiveTimestamp;
        logState(queue, message);
      });
      notify(queue);
    };
    return { taken, undo };
  }

  function receiptHandle(queueName: string, messageId: string): string {
    return Buffer.from(
      JSON.stringify({ q: queueName, m: messageId, n: randomBytes(12).toString('hex'), t: Date.now() }),
    ).toString('base64url');
  }

  function parseReceiptHandle(handle: string): { q: string; m: string } {
    try {
      const parsed = JSON.parse(Buffer.from(handle, 'base64url').toString('utf8')) as {
        q?: unknown;
        m?: unknown;
      };
      if (typeof parsed.q === 'string' && typeof parsed.m === 'string') return { q: parsed.q, m: parsed.m };
    } catch {
      // Falls through to the typed error.
    }
    throw errors.receiptHandleIsInvalid(handle);
  }

  function messageAttributesOf(raw: unknown): Record<string, MessageAttributeValue> | undefined {
    if (raw === undefined || raw === null) return undefined;
    const result: Record<string, MessageAttributeValue> = {};
    const entries = Object.entries(raw as Record<string, Partial<MessageAttributeValue>>);
    if (entries.length > 10)
      throw errors.invalidParameter('Number of message attributes exceeds the limit of 10.');
    for (const [name, value] of entries) {
      if (!/^[A-Za-z0-9_.-]{1,256}$/.test(name) || name.startsWith('.') || name.endsWith('.')) {
        throw errors.invalidParameter(`Message attribute name '${name}' is invalid.`);
      }
      if (!value?.DataType) {
        throw errors.invalidParameter(
          `The message attribute '${name}' must contain a non-empty message attribute type.`,
        );
      }
      const binary = value.DataType.startsWith('Binary');
      if (binary ? !value.BinaryValue : value.StringValue === undefined || value.StringValue === '') {
        throw errors.invalidParameter(`The message attribute '${name}' must contain a non-empty value.`);
      }
      result[name] = binary
        ? { DataType: value.DataType, BinaryValue: value.BinaryValue! }
        : { DataType: value.DataType, StringValue: value.StringValue! };
    }
    return Object.keys(result).length > 0 ? result : undefined;
  }

  function enqueue(queue: Queue, entry: Record<string, unknown>, senderId: string) {
    const body = entry.MessageBody;
    if (typeof body !== 'string' || body === '') throw errors.missingParameter('MessageBody');
    if (!validBodyCharacters(body)) {
      throw errors.invalidParameter('Invalid binary character in message body; see the SQS character set.');
    }
    const attributes = messageAttributesOf(entry.MessageAttributes);
    const size =
      Buffer.byteLength(body, 'utf8') +
      Object.entries(attributes ?? {}).reduce(
        (sum, [name, v]) =>
          sum +
          Buffer.byteLength(name) +
          Buffer.byteLength(v.DataType) +
          (v.StringValue !== undefined
            ? Buffer.byteLength(v.StringValue)
            : Buffer.from(v.BinaryValue!, 'base64').length),
        0,
      );
    const maxSize = num(queue, 'MaximumMessageSize');
    if (size > maxSize) {
      throw errors.invalidParameter(
        `One or more parameters are invalid. Reason: Message must be shorter than ${maxSize} bytes.`,
      );
    }
    const delay = integerParameter(entry.DelaySeconds, 'DelaySeconds', 0, 900) ?? num(queue, 'DelaySeconds');
    const systemAttributes: Record<string, string> = {};
    const trace = (entry.MessageSystemAttributes as Record<string, MessageAttributeValue> | undefined)
      ?.AWSTraceHeader?.StringValue;
    if (trace) systemAttributes.AWSTraceHeader = trace;
    const now = Date.now();
    const message: StoredMessage = {
      id: randomUUID(),
      body,
      md5OfBody: md5(body),
      ...(attributes
        ? { messageAttributes: attributes, md5OfMessageAttributes: md5OfMessageAttributes(attributes) }
        : {}),
      systemAttributes,
      senderId,
      sentTimestamp: now,
      visibleAt: now + delay * 1000,
      receiveCount: 0,
    };
    queue.messages.push(message);
    log({ t: 'put', q: queue.name, m: message });
    if (delay === 0) notify(queue);
    else armTimer(queue, now);
    return {
      MessageId: message.id,
      MD5OfMessageBody: message.md5OfBody,
      ...(message.md5OfMessageAttributes ? { MD5OfMessageAttributes: message.md5OfMessageAttributes } : {}),
    };
  }

  /** Runs a batch action per entry, with AWS's checks on the batch itself and per-entry failures. */
  function batch<T extends { Id?: unknown }>(
    entries: unknown,
    run: (entry: T) => Record<string, unknown>,
  ): { Successful: Array<Record<string, unknown>>; Failed: Array<Record<string, unknown>> } {
    if (!Array.isArray(entries) || entries.length === 0) throw errors.emptyBatch();
    if (entries.length > 10) throw errors.tooManyEntries();
    const list = entries as T[];
    for (const entry of list)
      if (typeof entry.Id !== 'string' || !batchIdPattern.test(entry.Id)) throw errors.invalidBatchEntryId();
    if (new Set(list.map((e) => e.Id)).size !== list.length) throw errors.idsNotDistinct();
    const Successful: Array<Record<string, unknown>> = [];
    const Failed: Array<Record<string, unknown>> = [];
    for (const entry of list) {
      try {
        Successful.push({ Id: entry.Id, ...run(entry) });
      } catch (error) {
        if (!(error instanceof SqsError)) throw error;
        Failed.push({
          Id: entry.Id,
          SenderFault: error.fault === 'Sender',
          Code: error.type,
          Message: error.message,
        });
      }
    }
    return { Successful, Failed };
  }

  function deleteMessage(queue: Queue, handle: string): void {
    const { q, m } = parseReceiptHandle(handle);
    if (q !== queue.name) throw errors.receiptHandleIsInvalid(handle);
    const index = queue.messages.findIndex((message) => message.id === m);
    // AWS answers success for a message already deleted, and for a stale handle of a message received
    // again since: "the request succeeds, but the message might not be deleted". Here it never is, so a
    // consumer that overran its visibility timeout cannot delete a message another consumer now holds.
    const message = index >= 0 ? queue.messages[index] : undefined;
    if (message && message.receiptHandle === handle) {
      queue.messages.splice(index, 1);
      log({ t: 'remove', q: queue.name, id: message.id });
    }
  }

  function changeVisibility(queue: Queue, handle: string, timeout: unknown): void {
    const seconds = integerParameter(timeout, 'VisibilityTimeout', 0, 43200);
    if (seconds === undefined) throw errors.missingParameter('VisibilityTimeout');
    const { q, m } = parseReceiptHandle(handle);
    if (q !== queue.name) throw errors.receiptHandleIsInvalid(handle);
    const message = queue.messages.find((candidate) => candidate.id === m);
    const now = Date.now();
    if (!message || message.receiptHandle !== handle) {
      // AWS's answer for a deleted message or a handle from an earlier receive.
      throw errors.invalidParameter(
        `Value ${handle} for parameter ReceiptHandle is invalid. Reason: Message does not exist or is not available for visibility timeout change.`,
      );
    }
    if (message.visibleAt <= now) throw errors.messageNotInflight();
    message.visibleAt = now + seconds * 1000;
    // The consumer chose this timeout (a backoff, a heartbeat): a restart keeps it.
    message.held = false;
    logState(queue, message);
    if (seconds === 0) notify(queue);
    else armTimer(queue, now);
  }

  function attributeNamesWanted(input: Record<string, unknown>, key: string): Set<string> {
    const names = Array.isArray(input[key]) ? (input[key] as string[]) : [];
    return new Set(names);
  }

  function queueAttributes(queue: Queue, wanted: string[]): Record<string, string> {
    const now = Date.now();
    dropExpired(queue, now);
    let visible = 0;
    let inFlight = 0;
    let delayed = 0;
    for (const m of queue.messages) {
      if (m.visibleAt <= now) visible += 1;
      else if (m.receiveCount > 0) inFlight += 1;
      else delayed += 1;
    }
    const all: Record<string, string> = {
      ...defaults,
      ...queue.attributes,
      ApproximateNumberOfMessages: String(visible),
      ApproximateNumberOfMessagesNotVisible: String(inFlight),
      ApproximateNumberOfMessagesDelayed: String(delayed),
      CreatedTimestamp: String(Math.floor(queue.createdTimestamp / 1000)),
      LastModifiedTimestamp: String(Math.floor(queue.lastModifiedTimestamp / 1000)),
      QueueArn: arnOf(queue.name),
      SqsManagedSseEnabled: queue.attributes.SqsManagedSseEnabled ?? 'false',
    };
    if (!all.RedrivePolicy) delete all.RedrivePolicy;
    if (wanted.includes('All')) return all;
    const result: Record<string, string> = {};
    for (const name of wanted) {
      const value = all[name];
      if (value !== undefined) result[name] = value;
      else if (!(name in numericAttributes) && !otherWritableAttributes.has(name))
        throw errors.invalidAttributeName(name);
    }
    return result;
  }

  function wantsMessageAttribute(name: string, patterns: Set<string>): boolean {
    if (patterns.has('All') || patterns.has('.*') || patterns.has(name)) return true;
    for (const pattern of patterns)
      if (pattern.endsWith('.*') && name.startsWith(pattern.slice(0, -1))) return true;
    return false;
  }

  function messageView(message: StoredMessage, systemWanted: Set<string>, attributePatterns: Set<string>) {
    const system: Record<string, string | undefined> = {
      SenderId: message.senderId,
      SentTimestamp: String(message.sentTimestamp),
      ApproximateReceiveCount: String(message.receiveCount),
      ApproximateFirstReceiveTimestamp: String(message.firstReceiveTimestamp ?? message.sentTimestamp),
      ...message.systemAttributes,
    };
    const all = systemWanted.has('All');
    const Attributes: Record<string, string> = {};
    for (const name of systemAttributeNames) {
      const value = system[name];
      if (value !== undefined && (all || systemWanted.has(name))) Attributes[name] = value;
    }
    const MessageAttributes: Record<string, MessageAttributeValue> = {};
    for (const [name, value] of Object.entries(message.messageAttributes ?? {})) {
      if (wantsMessageAttribute(name, attributePatterns)) MessageAttributes[name] = value;
    }
    return {
      MessageId: message.id,
      ReceiptHandle: message.receiptHandle,
      Body: message.body,
      MD5OfBody: message.md5OfBody,
      ...(Object.keys(Attributes).length > 0 ? { Attributes } : {}),
      // AWS returns the digest of all attributes, whichever were asked for, whenever some are returned.
      ...(Object.keys(MessageAttributes).length > 0
        ? { MessageAttributes, MD5OfMessageAttributes: message.md5OfMessageAttributes }
        : {}),
    };
  }

  async function receiveMessage(input: Record<string, unknown>, client: ClientConnection) {
    const queue = queueFromUrl(input);
    const max = integerParameter(input.MaxNumberOfMessages, 'MaxNumberOfMessages', 1, 10) ?? 1;
    const waitSeconds =
      integerParameter(input.WaitTimeSeconds, 'WaitTimeSeconds', 0, 20) ??
      num(queue, 'ReceiveMessageWaitTimeSeconds');
    const visibilityTimeout =
      integerParameter(input.VisibilityTimeout, 'VisibilityTimeout', 0, 43200) ??
      num(queue, 'VisibilityTimeout');
    const systemWanted = new Set([
      ...attributeNamesWanted(input, 'AttributeNames'),
      ...attributeNamesWanted(input, 'MessageSystemAttributeNames'),
    ]);
    const attributePatterns = attributeNamesWanted(input, 'MessageAttributeNames');

    const deadline = Date.now() + waitSeconds * 1000;
    const gone = () => closed || client.gone();
    let current: Queue = queue;
    for (;;) {
      // A queue deleted (and perhaps re-created) while we waited: look it up again by name.
      current = queues.get(queue.name) ?? current;
      if (gone()) return { Messages: [] };
      const { taken, undo } = takeMessages(current, max, visibilityTimeout);
      if (taken.length > 0) {
        // A client that aborted its long poll (a poller stopping) may have closed its socket just before
        // the send that woke us; give that close one turn of the event loop to arrive, and if it did,
        // return the messages to the queue rather than hide them for a visibility timeout.
        await new Promise((resolve) => setImmediate(resolve));
        if (gone()) {
          undo();
          return { Messages: [] };
        }
        return { Messages: taken.map((m) => messageView(m, systemWanted, attributePatterns)) };
      }
      if (Date.now() >= deadline) return { Messages: [] };
      await new Promise<void>((resolve) => {
        const wake = () => {
          current.waiters.delete(wake);
          clearTimeout(timeout);
          resolve();
        };
        const timeout = setTimeout(wake, deadline - Date.now());
        current.waiters.add(wake);
        void client.closed.then(wake);
        armTimer(current, Date.now());
      });
    }
  }

  const actions: Record<
    string,
    (input: Record<string, unknown>, req: IncomingMessage, client: ClientConnection) => unknown
  > = {
    CreateQueue: (input) => {
      const name = requiredString(input, 'QueueName');
      if (!/^[A-Za-z0-9_-]{1,80}$/.test(name)) {
        if (name.endsWith('.fifo')) throw errors.unsupported('FIFO queues');
        throw errors.invalidParameter(
          'Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length',
        );
      }
      const attributes = validateAttributes(
        (input.Attributes as Record<string, unknown> | undefined) ?? {},
        name,
      );
      const existing = queues.get(name);
      if (existing) {
        // Idempotent for the same attributes; AWS refuses a different value for one given.
        const differing = Object.entries(attributes).filter(
          ([k, v]) => (existing.attributes[k] ?? defaults[k] ?? '') !== v,
        );
        if (differing.length > 0) throw errors.queueNameExists(name);
        return { QueueUrl: urlOf(name) };
      }
      const now = Date.now();
      const queue: Queue = {
        name,
        attributes,
        createdTimestamp: now,
        lastModifiedTimestamp: now,
        messages: [],
        waiters: new Set(),
      };
      queues.set(name, queue);
      logQueue(queue);
      return { QueueUrl: urlOf(name) };
    },
    GetQueueUrl: (input) => {
      const name = requiredString(input, 'QueueName');
      if (input.QueueOwnerAWSAccountId !== undefined && input.QueueOwnerAWSAccountId !== accountId) {
        throw errors.queueDoesNotExist();
      }
      if (!queues.has(name)) throw errors.queueDoesNotExist();
      return { QueueUrl: urlOf(name) };
    },
    ListQueues: (input) => {
      const prefix = typeof input.QueueNamePrefix === 'string' ? input.QueueNamePrefix : '';
      const max = integerParameter(input.MaxResults, 'MaxResults', 1, 1000) ?? 1000;
      const names = [...queues.keys()].filter((n) => n.startsWith(prefix)).sort();
      return { QueueUrls: names.slice(0, max).map(urlOf) };
    },
    DeleteQueue: (input) => {
      const queue = queueFromUrl(input);
      queues.delete(queue.name);
      if (queue.timer) clearTimeout(queue.timer);
      notify(queue);
      log({ t: 'dropQueue', name: queue.name });
      return {};
    },
    PurgeQueue: (input) => {
      const queue = queueFromUrl(input);
      queue.messages = [];
      log({ t: 'purge', name: queue.name });
      return {};
    },
    GetQueueAttributes: (input) => {
      const queue = queueFromUrl(input);
      const wanted = Array.isArray(input.AttributeNames) ? (input.AttributeNames as string[]) : [];
      return { Attributes: queueAttributes(queue, wanted) };
    },
    SetQueueAttributes: (input) => {
      const queue = queueFromUrl(input);
      const attributes = validateAttributes(
        (input.Attributes as Record<string, unknown> | undefined) ?? {},
        queue.name,
      );
      for (const [k, v] of Object.entries(attributes)) {
        if (v === '') delete queue.attributes[k];
        else queue.attributes[k] = v;
      }
      queue.lastModifiedTimestamp = Date.now();
      logQueue(queue);
      return {};
    },
    SendMessage: (input, req) => enqueue(queueFromUrl(input), input, senderIdOf(req)),
    SendMessageBatch: (input, req) => {
      const queue = queueFromUrl(input);
      const senderId = senderIdOf(req);
      return batch<Record<string, unknown>>(input.Entries, (entry) => enqueue(queue, entry, senderId));
    },
    ReceiveMessage: (input, _req, client) => receiveMessage(input, client),
    DeleteMessage: (input) => {
      deleteMessage(queueFromUrl(input), requiredString(input, 'ReceiptHandle'));
      return {};
    },
    DeleteMessageBatch: (input) => {
      const queue = queueFromUrl(input);
      return batch<{ Id?: unknown; ReceiptHandle?: unknown }>(input.Entries, (entry) => {
        deleteMessage(queue, requiredString(entry, 'ReceiptHandle'));
        return {};
      });
    },
    ChangeMessageVisibility: (input) => {
      changeVisibility(queueFromUrl(input), requiredString(input, 'ReceiptHandle'), input.VisibilityTimeout);
      return {};
    },
    ChangeMessageVisibilityBatch: (input) => {
      const queue = queueFromUrl(input);
      return batch<{ Id?: unknown; ReceiptHandle?: unknown; VisibilityTimeout?: unknown }>(
        input.Entries,
        (entry) => {
          changeVisibility(queue, requiredString(entry, 'ReceiptHandle'), entry.VisibilityTimeout);
          return {};
        },
      );
    },
  };

  /** The access key of the SigV4 Authorization header stands in for the IAM principal id. */
  function senderIdOf(req: IncomingMessage): string {
    const match = /Credential=([^/,\s]+)/.exec(req.headers.authorization ?? '');
    return match?.[1] ?? accountId;
  }

  function send(
    res: ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ): void {
    if (res.headersSent || res.destroyed) return;
    const text = JSON.stringify(body);
    res.writeHead(status, {
      'content-type': 'application/x-amz-json-1.0',
      'content-length': String(Buffer.byteLength(text)),
      'x-amzn-requestid': randomUUID(),
      ...headers,
    });
    res.end(text);
  }

  function sendError(res: ServerResponse, error: SqsError): void {
    send(
      res,
      error.status,
      { __type: `com.amazonaws.sqs#${error.type}`, message: error.message },
      { 'x-amzn-query-error': `${error.queryCode};${error.fault}` },
    );
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const target = String(req.headers['x-amz-target'] ?? '');
    if (req.method !== 'POST' || !target.startsWith('AmazonSQS.')) {
      // The legacy query protocol (form-encoded Action=...) is what older SDKs and the CLI v1 speak.
      return sendError(
        res,
        errors.unsupported('Only the AWS JSON protocol (x-amz-target: AmazonSQS.<Action>)'),
      );
    }
    const action = actions[target.slice('AmazonSQS.'.length)];
    if (!action) return sendError(res, errors.unsupported(`Action ${target}`));
    let input: Record<string, unknown>;
    try {
      const text = Buffer.concat(chunks).toString('utf8');
      input = (text ? JSON.parse(text) : {}) as Record<string, unknown>;
    } catch {
      return sendError(
        res,
        new SqsError('SerializationException', 'SerializationException', 'Malformed JSON body.'),
      );
    }
    // Resolves when the client goes away, so a long poll it gave up on does not take messages.
    const client: ClientConnection = {
      closed: new Promise<void>((resolve) => res.once('close', () => resolve())),
      // The socket is marked destroyed at once; its 'close' event only comes in a later loop phase.
      gone: () => res.destroyed || req.socket.destroyed,
    };
    let result: unknown;
    let failure: unknown;
    try {
      result = await action(input, req, client);
    } catch (error) {
      failure = error;
    }
    try {
      // Nothing is answered before what it changed is durable, a refusal included (a batch may have
      // changed some entries before another one failed).
      await journal?.commit();
    } catch (error) {
      failure = error;
    }
    if (failure === undefined) return send(res, 200, result);
    if (failure instanceof SqsError) return sendError(res, failure);
    process.stderr.write(
      `sqs: ${target} failed: ${failure instanceof Error ? failure.stack : String(failure)}\n`,
    );
    sendError(
      res,
      new SqsError('InternalError', 'InternalError', 'We encountered an internal error.', 500, 'Receiver'),
    );
  }

  const server = createServer((req, res) => void handle(req, res));
  // Long polls last up to 20 s; keep idle keep-alive sockets longer than the SDK would reuse them.
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  baseUrl = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  return {
    url: baseUrl,
    port,
    accountId,
    region,
    queueUrl: urlOf,
    queueArn: arnOf,
    releasedOnStart,
    async close() {
      if (closed) return;
      closed = true;
      for (const queue of queues.values()) {
        if (queue.timer) clearTimeout(queue.timer);
        notify(queue);
      }
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await journal?.close();
    },
  };
}
