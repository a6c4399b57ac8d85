// The one table of functions, routes, queues and event sources. The CDK stack (lib/) and the local
// runtime (local/) both read it, so what runs on this machine is what deploys.
import { peopleFunctions, peopleRoutes } from './wiring/people';
import {
  safetyNetConsumers,
  safetyNetFunctions,
  safetyNetQueueNames,
  safetyNetQueueSpecs,
  safetyNetRoutes,
  safetyNetSchedules,
} from './wiring/safety-net';
import {
  mailboxFunctions,
  mailboxQueueConsumers,
  mailboxQueueNames,
  mailboxQueueSpecs,
  mailboxRoutes,
  mailboxSchedules,
} from './wiring/mailboxes';

/** Every queue; each has a dead-letter queue, and its URLs reach the functions as settings. */
export const queueNames = [
  'chunks',
  'webhooks',
  'validations',
  'invites',
  'probes',
  ...safetyNetQueueNames,
  ...mailboxQueueNames,
] as const;
export type QueueName = (typeof queueNames)[number];
/** The setting carrying a queue's URL, e.g. CHUNKS_QUEUE_URL; settings.ts declares one per queue. */
export type QueueUrlEnvName<N extends QueueName = QueueName> = `${Uppercase<N>}_QUEUE_URL`;
export type QueueDlqUrlEnvName<N extends QueueName = QueueName> = `${Uppercase<N>}_DLQ_URL`;

export interface QueueSpec {
  /** Physical name suffix: the queue is `mailvet-<name>` locally and `<stack>-<name>` in AWS. */
  name: QueueName;
  visibilityTimeoutSeconds: number;
  /** Receives before a message moves to the queue's dead-letter queue. */
  maxReceiveCount: number;
  /** How long messages are kept on the queue (its DLQ keeps them deadLetterRetentionSeconds). */
  retentionSeconds: number;
}

/**
 * What a function may do to the table, each a set of DynamoDB actions (lib/api-stack.ts tableActions):
 * read (GetItem, BatchGetItem), query (Query, on the table and its indexes), write (PutItem,
 * UpdateItem), delete (DeleteItem), batchWrite (BatchWriteItem, which may put and delete), transact
 * (ConditionCheckItem; a transaction's puts, updates and deletes need write and delete). No function
 * may Scan.
 */
export type TableAccess = 'read' | 'query' | 'write' | 'delete' | 'batchWrite' | 'transact';

/**
 * What a function may touch. The stack grants exactly this and nothing more; the integration suites
 * check every call the functions make locally against the grants (test/helpers/iam-check.ts).
 */
export interface FunctionAccess {
  table: TableAccess[];
  /** S3 key prefixes (with trailing slash) the function reads objects from. */
  bucketRead?: string[];
  /** S3 key prefixes the function writes (Put, multipart) objects to. */
  bucketWrite?: string[];
  /** S3 key prefixes the function lists and deletes objects under. */
  bucketDelete?: string[];
  /**
   * S3 key prefixes the function lists keys under without deleting (s3:ListBucket limited to them):
   * how it learns whether an object exists (functions/store/bucket.ts objectExists).
   */
  bucketList?: string[];
  /** Queues the function sends messages to. */
  sendsTo?: QueueName[];
  /**
   * Sealed secrets (functions/clients/secret-box.ts) the function seals (`encrypt`, sealSecret) or opens
   * (`decrypt`, openSecret): in AWS it gets SECRETS_KMS_KEY_ID and exactly those KMS actions on the
   * stack's key; a function without it has neither.
   */
  secrets?: ('encrypt' | 'decrypt')[];
  /**
   * The sales platforms' OAuth client credentials: in AWS the function gets PLATFORM_CREDENTIALS_SECRET
   * and may read that one secret (its handler needs the secretSettings() middleware). Locally they are
   * plain settings (OUTREACH_CLIENT_ID, ...).
   */
  platformCredentials?: boolean;
}

export interface FunctionSpec {
  /** Logical name: the Lambda's id in the stack, `npm run invoke -- <name>`, and `events/<name>.json`. */
  name: string;
  /** Handler module, relative to the repository root; it exports `handler`. */
  entry: string;
  description: string;
  timeoutSeconds: number;
  memoryMb: number;
  access: FunctionAccess;
}

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE' | 'OPTIONS';

export interface RouteSpec {
  method: HttpMethod;
  /** API Gateway HTTP API route path, `{param}` style. */
  path: string;
  function: string;
}

export interface QueueConsumerSpec {
  function: string;
  queue: QueueName;
  /** true: the consumer reads the queue's dead-letter queue instead of the queue itself. */
  deadLetters?: boolean;
  batchSize: number;
  /** Most batches handled at once (Lambda's maximum concurrency of the event source mapping). */
  maxConcurrency: number;
}

export interface BucketTriggerSpec {
  function: string;
  prefix: string;
  events: 's3:ObjectCreated:*';
  /** Retries of a failed asynchronous invocation (Lambda waits about 1 then 2 minutes between them). */
  retryAttempts: number;
  /** Invoked with Lambda's on-failure destination record once the retries are spent. */
  onFailure: string;
}

/**
 * A function invoked on a timer with a ScheduledRun (functions/middlewares/scheduled.ts). In AWS: one
 * EventBridge Scheduler schedule (lib/schedules.ts); on the local runtime: a timer (local/schedules.ts).
 */
export interface ScheduleSpec {
  /** e.g. 'safetyNetSync': the schedule's id, and `run.schedule` of each invocation. */
  name: string;
  /** A function of the wiring; invoked with ScheduledRun. */
  function: string;
  description: string;
  /**
   * How often: every N minutes (a setting, decimals allowed locally; rounded up to >= 1 in AWS) or
   * daily at an hour UTC. The setting is read from the runtime's environment locally and from the CDK
   * context of the same name in the stack (`-c SAFETY_NET_SYNC_MINUTES=15`); unset: the default.
   */
  every:
    { minutesSetting: string; defaultMinutes: number } | { dailyHourUtcSetting: string; defaultHour: number };
}

export const uploadsPrefix = 'uploads/';
export const partsPrefix = 'parts/';
export const resultsPrefix = 'results/';

const apiDefaults = { timeoutSeconds: 29, memoryMb: 512 };
/** Authentication reads the key; the per-company rate limit updates a counter item on every request. */
const api: TableAccess[] = ['read', 'write'];
/** Workspace reads query items and indexes, and write a list view whole (batch writes) on first use. */
const workspaceRead: TableAccess[] = [...api, 'query', 'batchWrite'];
/** Patches also write the item and its list views in a transaction that checks its owner. */
const workspacePatch: TableAccess[] = [...workspaceRead, 'transact'];

/** Every function. */
export const functions: FunctionSpec[] = [
  // Bulk validation (docs/api.md)
  {
    name: 'createJob',
    entry: 'functions/handlers/create-job.ts',
    description: 'POST /v1/email/validate-file: create a bulk job and its presigned upload URL',
    ...apiDefaults,
    access: { table: [...api, 'delete'], bucketWrite: [uploadsPrefix] },
  },
  {
    name: 'getJob',
    entry: 'functions/handlers/get-job.ts',
    description: 'GET /v1/email/validate-file/{jobId}: job status and progress',
    ...apiDefaults,
    access: { table: [...api, 'delete'] },
  },
  {
    name: 'downloadJob',
    entry: 'functions/handlers/download-job.ts',
    description:
      'GET /v1/email/validate-file/{jobId}/download: presigned GET of the results file or of a filtered copy (made once)',
    timeoutSeconds: 29,
    // Making a filtered copy streams the whole results file: more memory is more CPU.
    memoryMb: 1024,
    access: {
      table: api,
      bucketRead: [resultsPrefix],
      bucketWrite: [resultsPrefix],
      bucketList: [resultsPrefix],
    },
  },
  {
    name: 'runEstimate',
    entry: 'functions/handlers/run-estimate.ts',
    description:
      'POST /v1/email/validate-file/{jobId}/run: run a completed estimate in full as a new job (copies its upload)',
    ...apiDefaults,
    // the copy reads the estimate's upload and writes the run's; the listing checks the upload is still there
    access: {
      table: [...api, 'delete'],
      bucketRead: [uploadsPrefix],
      bucketWrite: [uploadsPrefix],
      bucketList: [uploadsPrefix],
    },
  },
  {
    name: 'listJobs',
    entry: 'functions/handlers/list-jobs.ts',
    description: "GET /v1/email/validate-file: the company's jobs, newest first",
    ...apiDefaults,
    access: { table: [...api, 'query'] },
  },
  {
    name: 'deleteJob',
    entry: 'functions/handlers/delete-job.ts',
    description: 'DELETE /v1/email/validate-file/{jobId}: cancel the job and delete it and its files',
    ...apiDefaults,
    access: { table: [...api, 'delete'], bucketDelete: [uploadsPrefix, partsPrefix, resultsPrefix] },
  },
  {
    name: 'listWebhookDeliveries',
    entry: 'functions/handlers/list-webhook-deliveries.ts',
    description: "GET /v1/email/validate-file/{jobId}/webhook-deliveries: the completion webhook's attempts",
    ...apiDefaults,
    access: { table: api },
  },
  {
    name: 'startProcessing',
    entry: 'functions/handlers/start-processing.ts',
    description: 'S3 ObjectCreated on uploads/: move the job to processing, chunk the file, fan out',
    timeoutSeconds: 300,
    memoryMb: 1024,
    access: {
      table: ['read', 'query', 'write', 'delete'],
      bucketRead: [uploadsPrefix],
      // the duplicate rows it found, for the assembly
      bucketWrite: [partsPrefix],
      sendsTo: ['chunks'],
    },
  },
  {
    name: 'failStartProcessing',
    entry: 'functions/handlers/fail-start-processing.ts',
    description: "startProcessing's on-failure destination: a job whose start kept failing is failed",
    timeoutSeconds: 30,
    memoryMb: 256,
    access: { table: ['read', 'write', 'delete'] },
  },
  {
    name: 'validateChunk',
    entry: 'functions/handlers/validate-chunk.ts',
    description: 'SQS chunks: validate one byte range of an upload, write its part, complete the job',
    timeoutSeconds: 120,
    memoryMb: 1024,
    access: {
      table: ['read', 'query', 'write', 'delete'],
      bucketRead: [uploadsPrefix, partsPrefix],
      bucketWrite: [partsPrefix, resultsPrefix],
      sendsTo: ['webhooks', 'probes', 'chunks'],
    },
  },
  {
    name: 'probeMailboxes',
    entry: 'functions/handlers/probe-mailboxes.ts',
    description:
      'SQS probes: probe the mailboxes of one MX host over SMTP, politely; hand back what is left; settle the batch',
    timeoutSeconds: 120,
    memoryMb: 512,
    access: { table: ['read', 'write', 'delete'], sendsTo: ['probes', 'chunks'] },
  },
  {
    name: 'failProbeBatch',
    entry: 'functions/handlers/fail-probe-batch.ts',
    description:
      'SQS probes DLQ: a probe batch that kept failing settles without verdicts (DNS verdicts stand)',
    timeoutSeconds: 30,
    memoryMb: 256,
    access: { table: ['read', 'write', 'delete'], sendsTo: ['chunks'] },
  },
  {
    name: 'failChunkJob',
    entry: 'functions/handlers/fail-chunk-job.ts',
    description: 'SQS chunks DLQ: a chunk that kept failing fails its job',
    timeoutSeconds: 30,
    memoryMb: 256,
    access: { table: ['read', 'write', 'delete'] },
  },
  {
    name: 'sendWebhook',
    entry: 'functions/handlers/send-webhook.ts',
    description: 'SQS webhooks: deliver the signed completion webhook, backing off through the queue',
    timeoutSeconds: 15,
    memoryMb: 256,
    access: { table: ['read', 'write'], sendsTo: ['webhooks'] },
  },
  // Single-email validation (docs/api.md)
  {
    name: 'validateEmail',
    entry: 'functions/handlers/validate-email.ts',
    description: 'POST /v1/email/validate: validate one address within the sync budget',
    timeoutSeconds: 29,
    memoryMb: 512,
    // delete: the mailbox probe releases its MX host session lease (store/mx-politeness.ts)
    access: { table: [...api, 'query', 'delete'], sendsTo: ['validations'] },
  },
  {
    name: 'validateEmailBatch',
    entry: 'functions/handlers/validate-email-batch.ts',
    description: 'POST /v1/email/validate-batch: validate up to 100 addresses within the sync budget',
    timeoutSeconds: 29,
    memoryMb: 512,
    // delete: the mailbox probe releases its MX host session lease (store/mx-politeness.ts)
    access: { table: [...api, 'query', 'delete'], sendsTo: ['validations'] },
  },
  {
    name: 'validateEmailAsync',
    entry: 'functions/handlers/validate-email-async.ts',
    description: 'POST /v1/email/validate-async: accept one address and queue its validation',
    ...apiDefaults,
    access: { table: [...api, 'query', 'delete'], sendsTo: ['validations'] },
  },
  {
    name: 'getValidation',
    entry: 'functions/handlers/get-validation.ts',
    description: 'GET /v1/email/validate/{requestId}: poll a validation request',
    ...apiDefaults,
    access: { table: api },
  },
  {
    name: 'runValidation',
    entry: 'functions/handlers/run-validation.ts',
    description: 'SQS validations: validate one queued address and store the result',
    timeoutSeconds: 60,
    memoryMb: 512,
    // delete: the mailbox probe releases its MX host session lease (store/mx-politeness.ts)
    access: { table: ['read', 'write', 'delete'] },
  },
  {
    name: 'failValidation',
    entry: 'functions/handlers/fail-validation.ts',
    description: 'SQS validations DLQ: a validation that kept failing is marked failed (polling answers 500)',
    timeoutSeconds: 30,
    memoryMb: 256,
    access: { table: ['read', 'write'] },
  },
  // Usage, quota and credits (docs/api.md)
  {
    name: 'getUsage',
    entry: 'functions/handlers/get-usage.ts',
    description: 'GET /v1/usage: validations used in a month, quota, credits and what remains',
    ...apiDefaults,
    access: { table: [...api, 'query'] },
  },
  // Workspace data (docs/api.md)
  ...(
    [
      ['listConnectedMailboxes', 'list-connected-mailboxes', 'GET /v1/connected-mailboxes'],
      ['getConnectedMailbox', 'get-connected-mailbox', 'GET /v1/connected-mailboxes/{id}'],
      ['listConnectedDomains', 'list-connected-domains', 'GET /v1/connected-domains'],
      ['getConnectedDomain', 'get-connected-domain', 'GET /v1/connected-domains/{domainName}'],
      ['listUsers', 'list-users', 'GET /v1/users'],
      ['getUser', 'get-user', 'GET /v1/users/{id}'],
      ['listSafetyNetMailboxes', 'list-safety-net-mailboxes', 'GET /v1/safety-net-mailboxes'],
      ['getSafetyNetMailbox', 'get-safety-net-mailbox', 'GET /v1/safety-net-mailboxes/{id}'],
      ['patchSafetyNetMailbox', 'patch-safety-net-mailbox', 'PATCH /v1/safety-net-mailboxes/{id}'],
      ['listSafetyNetSequences', 'list-safety-net-sequences', 'GET /v1/safety-net-sequences'],
      ['getSafetyNetSequence', 'get-safety-net-sequence', 'GET /v1/safety-net-sequences/{id}'],
      ['patchSafetyNetSequence', 'patch-safety-net-sequence', 'PATCH /v1/safety-net-sequences/{id}'],
    ] as const
  ).map(([name, file, route]) => ({
    name,
    entry: `functions/handlers/${file}.ts`,
    description: route,
    ...apiDefaults,
    access: {
      table: route.startsWith('PATCH') ? workspacePatch : workspaceRead,
    },
  })),
  {
    name: 'inviteUser',
    entry: 'functions/handlers/invite-user.ts',
    description: 'POST /v1/users: invite a user (seat, outbox message)',
    ...apiDefaults,
    access: { table: [...workspaceRead, 'transact'], sendsTo: ['invites'] },
  },
  {
    name: 'sendInvite',
    entry: 'functions/handlers/send-invite.ts',
    description: 'SQS invites: hand a stored invite email to the mail transport and mark it sent',
    timeoutSeconds: 30,
    memoryMb: 256,
    access: { table: ['read', 'write'] },
  },
  {
    name: 'notFound',
    entry: 'functions/handlers/not-found.ts',
    description: 'Any route the API does not define: 404 {"error":"Not found"}',
    timeoutSeconds: 10,
    memoryMb: 256,
    access: { table: [] },
  },
  ...peopleFunctions,
  ...safetyNetFunctions,
  ...mailboxFunctions,
];

export const routes: RouteSpec[] = [
  { method: 'POST', path: '/v1/email/validate-file', function: 'createJob' },
  { method: 'GET', path: '/v1/email/validate-file/{jobId}', function: 'getJob' },
  { method: 'GET', path: '/v1/email/validate-file/{jobId}/download', function: 'downloadJob' },
  { method: 'POST', path: '/v1/email/validate-file/{jobId}/run', function: 'runEstimate' },
  { method: 'GET', path: '/v1/email/validate-file', function: 'listJobs' },
  { method: 'DELETE', path: '/v1/email/validate-file/{jobId}', function: 'deleteJob' },
  {
    method: 'GET',
    path: '/v1/email/validate-file/{jobId}/webhook-deliveries',
    function: 'listWebhookDeliveries',
  },
  { method: 'POST', path: '/v1/email/validate', function: 'validateEmail' },
  { method: 'POST', path: '/v1/email/validate-batch', function: 'validateEmailBatch' },
  { method: 'POST', path: '/v1/email/validate-async', function: 'validateEmailAsync' },
  { method: 'GET', path: '/v1/email/validate/{requestId}', function: 'getValidation' },
  { method: 'GET', path: '/v1/usage', function: 'getUsage' },
  { method: 'GET', path: '/v1/connected-mailboxes', function: 'listConnectedMailboxes' },
  { method: 'GET', path: '/v1/connected-mailboxes/{id}', function: 'getConnectedMailbox' },
  { method: 'GET', path: '/v1/connected-domains', function: 'listConnectedDomains' },
  { method: 'GET', path: '/v1/connected-domains/{domainName}', function: 'getConnectedDomain' },
  { method: 'GET', path: '/v1/users', function: 'listUsers' },
  { method: 'GET', path: '/v1/users/{id}', function: 'getUser' },
  { method: 'POST', path: '/v1/users', function: 'inviteUser' },
  { method: 'GET', path: '/v1/safety-net-mailboxes', function: 'listSafetyNetMailboxes' },
  { method: 'GET', path: '/v1/safety-net-mailboxes/{id}', function: 'getSafetyNetMailbox' },
  { method: 'PATCH', path: '/v1/safety-net-mailboxes/{id}', function: 'patchSafetyNetMailbox' },
  { method: 'GET', path: '/v1/safety-net-sequences', function: 'listSafetyNetSequences' },
  { method: 'GET', path: '/v1/safety-net-sequences/{id}', function: 'getSafetyNetSequence' },
  { method: 'PATCH', path: '/v1/safety-net-sequences/{id}', function: 'patchSafetyNetSequence' },
  ...peopleRoutes,
  ...safetyNetRoutes,
  ...mailboxRoutes,
];

/**
 * The CORS preflights that reach a function: web pages on other sites call this route with a
 * publishable key, and only the function knows which origins such keys were made for.
 */
export const preflightRoutes: RouteSpec[] = [
  { method: 'OPTIONS', path: '/v1/email/validate', function: 'validateEmail' },
];

/** The function behind API Gateway's `$default` route: anything `routes` does not match. */
export const defaultRouteFunction = 'notFound';

/** Dead-letter queues keep messages 14 days (SQS's maximum), counted from the original send. */
export const deadLetterRetentionSeconds = 14 * 86400;

// A Record, so a queue in queueNames without its spec (or the other way round) fails the build.
const queueSpecs: Record<QueueName, Omit<QueueSpec, 'name'>> = {
  chunks: { visibilityTimeoutSeconds: 720, maxReceiveCount: 3, retentionSeconds: 4 * 86400 },
  webhooks: { visibilityTimeoutSeconds: 90, maxReceiveCount: 6, retentionSeconds: 4 * 86400 },
  validations: { visibilityTimeoutSeconds: 360, maxReceiveCount: 3, retentionSeconds: 4 * 86400 },
  invites: { visibilityTimeoutSeconds: 180, maxReceiveCount: 5, retentionSeconds: 4 * 86400 },
  probes: { visibilityTimeoutSeconds: 720, maxReceiveCount: 3, retentionSeconds: 4 * 86400 },
  ...safetyNetQueueSpecs,
  ...mailboxQueueSpecs,
};

export const queues: QueueSpec[] = queueNames.map((name) => ({ name, ...queueSpecs[name] }));

export const queueConsumers: QueueConsumerSpec[] = [
  { function: 'validateChunk', queue: 'chunks', batchSize: 1, maxConcurrency: 20 },
  { function: 'failChunkJob', queue: 'chunks', deadLetters: true, batchSize: 10, maxConcurrency: 2 },
  { function: 'sendWebhook', queue: 'webhooks', batchSize: 10, maxConcurrency: 5 },
  { function: 'runValidation', queue: 'validations', batchSize: 10, maxConcurrency: 10 },
  { function: 'failValidation', queue: 'validations', deadLetters: true, batchSize: 10, maxConcurrency: 2 },
  { function: 'sendInvite', queue: 'invites', batchSize: 10, maxConcurrency: 2 },
  { function: 'probeMailboxes', queue: 'probes', batchSize: 10, maxConcurrency: 20 },
  { function: 'failProbeBatch', queue: 'probes', deadLetters: true, batchSize: 10, maxConcurrency: 2 },
  ...safetyNetConsumers,
  ...mailboxQueueConsumers,
];

export const bucketTriggers: BucketTriggerSpec[] = [
  {
    function: 'startProcessing',
    prefix: uploadsPrefix,
    events: 's3:ObjectCreated:*',
    // One retry: with the 300 s timeout a job whose start fails is failed within about 11 minutes.
    retryAttempts: 1,
    onFailure: 'failStartProcessing',
  },
];

/** Every schedule: the contexts add theirs from functions/wiring/<context>.ts. */
export const schedules: ScheduleSpec[] = [...safetyNetSchedules, ...mailboxSchedules];

export function functionByName(name: string): FunctionSpec {
  const spec = functions.find((f) => f.name === name);
  if (!spec) throw new Error(`No function named ${name} in functions/wiring.ts`);
  return spec;
}

export function queueByName(name: QueueName): QueueSpec {
  const spec = queues.find((q) => q.name === name);
  if (!spec) throw new Error(`No queue named ${name} in functions/wiring.ts`);
  return spec;
}

/** Environment variable that carries a queue's URL to every function, e.g. CHUNKS_QUEUE_URL. */
export function queueUrlEnvName<N extends QueueName>(name: N): QueueUrlEnvName<N> {
  return `${name.toUpperCase() as Uppercase<N>}_QUEUE_URL`;
}

/** Environment variable with a dead-letter queue's URL (local runtime and tests only), e.g. CHUNKS_DLQ_URL. */
export function queueDlqUrlEnvName<N extends QueueName>(name: N): QueueDlqUrlEnvName<N> {
  return `${name.toUpperCase() as Uppercase<N>}_DLQ_URL`;
}

/** Every queue URL setting, in queueNames order. */
export const queueUrlEnvNames: QueueUrlEnvName[] = queueNames.map((name) => queueUrlEnvName(name));
