// Connected mailboxes and their placement tests in the wiring table (docs/mailboxes.md): two routes,
// the daily schedule's function, and the send and check queues with their consumers. Spread into the
// tables of ../wiring.ts.
import type {
  FunctionSpec,
  QueueConsumerSpec,
  QueueSpec,
  RouteSpec,
  ScheduleSpec,
  TableAccess,
} from '../wiring';

export const mailboxQueueNames = ['placementSends', 'placementChecks'] as const;
type MailboxQueueName = (typeof mailboxQueueNames)[number];

/**
 * The functions that open IMAP (993, or 143 with STARTTLS) or SMTP submission (587 with STARTTLS, or
 * 465) sessions to the mailboxes' own servers. None of them needs port 25.
 */
export const mailboxServerFunctions = ['connectMailbox', 'sendPlacementTests', 'checkPlacement'] as const;

const apiDefaults = { timeoutSeconds: 29, memoryMb: 512 };
/** An API route reads the key and writes the rate counter; the workspace's views are queried and built. */
const workspaceWrite: TableAccess[] = ['read', 'write', 'query', 'batchWrite', 'transact'];

export const mailboxFunctions: FunctionSpec[] = [
  {
    name: 'connectMailbox',
    entry: 'functions/handlers/connect-mailbox.ts',
    description: 'POST /v1/connected-mailboxes: check IMAP and SMTP logins, seal the credentials, connect',
    ...apiDefaults,
    access: { table: workspaceWrite, secrets: ['encrypt'] },
  },
  {
    name: 'disconnectMailbox',
    entry: 'functions/handlers/disconnect-mailbox.ts',
    description: 'DELETE /v1/connected-mailboxes/{id}: delete a mailbox, its credentials and its series',
    ...apiDefaults,
    access: { table: [...workspaceWrite, 'delete'] },
  },
  {
    name: 'startPlacementDay',
    entry: 'functions/handlers/start-placement-day.ts',
    description: 'Schedule placementDaily: one send and one delayed check message per network mailbox',
    timeoutSeconds: 120,
    memoryMb: 512,
    access: { table: ['query'], sendsTo: ['placementSends', 'placementChecks'] },
  },
  {
    name: 'sendPlacementTests',
    entry: 'functions/handlers/send-placement-tests.ts',
    description: "SQS placementSends: send one mailbox's tests of the day over SMTP submission",
    timeoutSeconds: 120,
    memoryMb: 512,
    access: { table: ['read', 'write', 'query', 'batchWrite', 'transact'], secrets: ['decrypt'] },
  },
  {
    name: 'checkPlacement',
    entry: 'functions/handlers/check-placement.ts',
    description: 'SQS placementChecks: read one receiver over IMAP, record where tests landed, score senders',
    timeoutSeconds: 120,
    memoryMb: 512,
    access: {
      table: ['read', 'write', 'query', 'batchWrite', 'transact'],
      sendsTo: ['placementChecks'],
      secrets: ['decrypt'],
    },
  },
];

export const mailboxRoutes: RouteSpec[] = [
  { method: 'POST', path: '/v1/connected-mailboxes', function: 'connectMailbox' },
  { method: 'DELETE', path: '/v1/connected-mailboxes/{id}', function: 'disconnectMailbox' },
];

export const mailboxQueueSpecs: Record<MailboxQueueName, Omit<QueueSpec, 'name'>> = {
  placementSends: { visibilityTimeoutSeconds: 720, maxReceiveCount: 3, retentionSeconds: 86400 },
  placementChecks: { visibilityTimeoutSeconds: 720, maxReceiveCount: 3, retentionSeconds: 86400 },
};

export const mailboxQueueConsumers: QueueConsumerSpec[] = [
  { function: 'sendPlacementTests', queue: 'placementSends', batchSize: 5, maxConcurrency: 5 },
  { function: 'checkPlacement', queue: 'placementChecks', batchSize: 5, maxConcurrency: 5 },
];

export const mailboxSchedules: ScheduleSpec[] = [
  {
    name: 'placementDaily',
    function: 'startPlacementDay',
    description: "Each day's placement tests: one send and one delayed check message per network mailbox",
    every: { dailyHourUtcSetting: 'PLACEMENT_HOUR_UTC', defaultHour: 6 },
  },
];
