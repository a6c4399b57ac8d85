// The Safety Net connections' part of the wiring table (docs/safety-net.md): spread into the tables of
// functions/wiring.ts, which the stack and the local runtime read.
import type {
  FunctionSpec,
  QueueConsumerSpec,
  QueueSpec,
  RouteSpec,
  ScheduleSpec,
  TableAccess,
} from '../wiring';

export const safetyNetQueueNames = ['safetynet'] as const;

/**
 * A sync or look-ahead may wait out a platform's short rate limit: the consumer's 300 s timeout, six
 * times over. A longer limit holds the message until its time (several receives), hence 8 before the DLQ.
 */
export const safetyNetQueueSpecs: Record<(typeof safetyNetQueueNames)[number], Omit<QueueSpec, 'name'>> = {
  safetynet: { visibilityTimeoutSeconds: 1800, maxReceiveCount: 8, retentionSeconds: 4 * 86400 },
};

const apiDefaults = { timeoutSeconds: 29, memoryMb: 512 };
/** Authentication reads the key; the rate limit writes its counter. */
const api: TableAccess[] = ['read', 'write'];

const route = (name: string, file: string, description: string, table: TableAccess[], extra = {}) => ({
  name,
  entry: `functions/handlers/${file}.ts`,
  description,
  ...apiDefaults,
  access: { table, ...extra },
});

export const safetyNetFunctions: FunctionSpec[] = [
  route(
    'startIntegration',
    'start-integration',
    'POST /v1/integrations/{platform}: the authorize URL (admin)',
    api,
    { platformCredentials: true },
  ),
  route(
    'integrationCallback',
    'integration-callback',
    'GET /v1/integrations/{platform}/callback: exchange the code, seal and store the grant, queue the first sync',
    ['read', 'write', 'delete'],
    { sendsTo: ['safetynet'], secrets: ['encrypt'], platformCredentials: true },
  ),
  route('listIntegrations', 'list-integrations', 'GET /v1/integrations: the connections and their state', [
    ...api,
    'query',
  ]),
  route(
    'syncIntegration',
    'sync-integration',
    'POST /v1/integrations/{platform}/sync: queue a sync now',
    api,
    {
      sendsTo: ['safetynet'],
    },
  ),
  route(
    'deleteIntegration',
    'delete-integration',
    "DELETE /v1/integrations/{platform}: forget the grant; the platform's items leave the lists",
    [...api, 'query', 'delete', 'batchWrite'],
  ),
  route(
    'integrationWebhook',
    'integration-webhook',
    "POST /v1/integrations/{platform}/webhooks/{companyId}: a platform's signed webhook queues a look-ahead",
    ['read'],
    { sendsTo: ['safetynet'], secrets: ['decrypt'] },
  ),
  route('listSafetyNetPreventions', 'list-safety-net-preventions', 'GET /v1/safety-net/preventions', [
    ...api,
    'query',
  ]),
  route('getSafetyNetAllowlist', 'get-safety-net-allowlist', 'GET /v1/safety-net/allowlist (admin)', [
    ...api,
    'query',
  ]),
  route(
    'putSafetyNetAllowlist',
    'put-safety-net-allowlist',
    'PUT /v1/safety-net/allowlist/{email} (admin)',
    api,
  ),
  route(
    'deleteSafetyNetAllowlist',
    'delete-safety-net-allowlist',
    'DELETE /v1/safety-net/allowlist/{email} (admin)',
    [...api, 'delete'],
  ),
  {
    name: 'runSafetyNet',
    entry: 'functions/handlers/run-safety-net.ts',
    description:
      "SQS safetynet: sync a connection's mailboxes and sequences into the lists, or read its scheduled emails and stop the risky ones",
    timeoutSeconds: 300,
    memoryMb: 512,
    access: {
      table: ['read', 'query', 'write', 'delete', 'batchWrite'],
      // the prevention email goes through the outbox and the invites queue (functions/domain/mail)
      sendsTo: ['safetynet', 'invites'],
      // opens the grant and the webhook secret; seals a refreshed grant
      secrets: ['encrypt', 'decrypt'],
      platformCredentials: true,
    },
  },
  {
    name: 'safetyNetSyncSchedule',
    entry: 'functions/handlers/safety-net-sync-schedule.ts',
    description: 'Schedule: one safetynet sync message per connection',
    timeoutSeconds: 60,
    memoryMb: 256,
    access: { table: ['query'], sendsTo: ['safetynet'] },
  },
  {
    name: 'safetyNetLookaheadSchedule',
    entry: 'functions/handlers/safety-net-lookahead-schedule.ts',
    description: 'Schedule: one safetynet look-ahead message per connection',
    timeoutSeconds: 60,
    memoryMb: 256,
    access: { table: ['query'], sendsTo: ['safetynet'] },
  },
];

export const safetyNetRoutes: RouteSpec[] = [
  { method: 'POST', path: '/v1/integrations/{platform}', function: 'startIntegration' },
  { method: 'GET', path: '/v1/integrations/{platform}/callback', function: 'integrationCallback' },
  { method: 'GET', path: '/v1/integrations', function: 'listIntegrations' },
  { method: 'POST', path: '/v1/integrations/{platform}/sync', function: 'syncIntegration' },
  { method: 'DELETE', path: '/v1/integrations/{platform}', function: 'deleteIntegration' },
  {
    method: 'POST',
    path: '/v1/integrations/{platform}/webhooks/{companyId}',
    function: 'integrationWebhook',
  },
  { method: 'GET', path: '/v1/safety-net/preventions', function: 'listSafetyNetPreventions' },
  { method: 'GET', path: '/v1/safety-net/allowlist', function: 'getSafetyNetAllowlist' },
  { method: 'PUT', path: '/v1/safety-net/allowlist/{email}', function: 'putSafetyNetAllowlist' },
  { method: 'DELETE', path: '/v1/safety-net/allowlist/{email}', function: 'deleteSafetyNetAllowlist' },
];

export const safetyNetConsumers: QueueConsumerSpec[] = [
  { function: 'runSafetyNet', queue: 'safetynet', batchSize: 1, maxConcurrency: 5 },
];

export const safetyNetSchedules: ScheduleSpec[] = [
  {
    name: 'safetyNetSync',
    function: 'safetyNetSyncSchedule',
    description: "Sync every Safety Net connection's mailboxes and sequences",
    every: { minutesSetting: 'SAFETY_NET_SYNC_MINUTES', defaultMinutes: 15 },
  },
  {
    name: 'safetyNetLookahead',
    function: 'safetyNetLookaheadSchedule',
    description: 'Read every scheduled email of every Safety Net connection and stop the risky ones',
    every: { minutesSetting: 'SAFETY_NET_LOOKAHEAD_MINUTES', defaultMinutes: 5 },
  },
];
