// The OpenAPI 3.1 document of the HTTP API, built from the route table (functions/wiring.ts) and the
// zod schemas the use cases export: request bodies, query strings and path ids as the code parses
// them, responses as the code writes them (a test checks real responses against this document), and
// every error with its exact text. `npm run openapi` writes it to docs/openapi.json; a test checks the
// file is current and `npm run lint` lints it (Redocly).
import { version as packageVersion } from '../../package.json';
import { z } from 'zod';
import { createJobRequestErrors, createJobRequestSchema } from '../domain/bulk/create-job-request';
import { jobViewSchema } from '../domain/bulk/job-view';
import {
  concurrentJobLimitMessage,
  createdJobSchema,
  downloadDescriptorSchema,
  downloadQuery,
  downloadQueryErrors,
  estimateNoResultsMessage,
  jobListSchema,
  jobNotCompletedMessage,
  jobNotFoundMessage,
  listJobsQuery,
  noRowIndexMessage,
  resultsExpiredMessage,
} from '../domain/bulk/jobs';
import { webhookDeliveriesSchema } from '../domain/webhooks/delivery-log';
import {
  alreadyRunMessage,
  estimateFileGoneMessage,
  notAnEstimateMessage,
} from '../domain/bulk/estimate/run-estimate';
import {
  idempotencyInProgressMessage,
  idempotencyInvalidMessage,
  idempotencyMismatchMessage,
} from './idempotency';
import { permissionMissingMessage } from '../domain/accounts/accounts';
import { REQUEST_NOT_FOUND } from '../domain/single-validation/poll';
import { FAILED_MESSAGE, inProgressSchema, OVERDUE_MESSAGE } from '../domain/single-validation/polling';
import { validationRequestErrors, validationRequestSchema } from '../domain/single-validation/request-body';
import { completedBodySchema } from '../domain/single-validation/result-body';
import {
  batchRequestErrors,
  batchRequestSchema,
  batchResponseSchema,
} from '../domain/single-validation/validate-batch';
import {
  activationBody,
  activationRejectedMessage,
  inviteBody,
  inviteBodyErrors,
  uuidParam,
} from '../domain/workspace/bodies';
import {
  connectedDomainListSchema,
  connectedDomainSchema,
  listConnectedDomainsQuery,
} from '../domain/workspace/connected-domains';
import {
  connectedMailboxListSchema,
  connectedMailboxSchema,
  listConnectedMailboxesQuery,
} from '../domain/workspace/connected-mailboxes';
import { adminOnlyMessage, connectedMailboxItemSchema } from '../domain/mailboxes/connect';
import { connectMailboxBody, connectMailboxErrors } from '../domain/mailboxes/connect-body';
import { alreadyConnectedMessage, mailboxNotFoundMessage } from '../domain/mailboxes/workspace-sync';
import { inviteConflictMessages } from '../domain/workspace/invites';
import { safetyNetMailboxBodySchema, sequenceBodySchema, userBodySchema } from '../domain/workspace/model';
import { detailWindowQuery, oneOfMessage, pagingErrors, windowErrors } from '../domain/workspace/query';
import {
  listSafetyNetMailboxesQuery,
  listSafetyNetSequencesQuery,
  safetyNetMailboxListSchema,
  safetyNetSequenceListSchema,
} from '../domain/workspace/safety-net';
import { listUsersQuery, userListSchema } from '../domain/workspace/users';
import { invalidMonthMessage, usageQuery, usageViewSchema } from '../domain/usage';
import {
  errorBodySchema,
  internalErrorMessage,
  invalidJsonMessage,
  tooDeepJsonMessage,
  invalidKeyMessage,
  invalidTokenMessage,
  missingKeyMessage,
  quotaExceededMessage,
  rateLimitMessage,
  unavailableMessage,
} from '../errors';
import { routes, type RouteSpec } from '../wiring';
import { peopleOperations, peopleSchemas, peopleTags } from './openapi-people';
import {
  safetyNetOperations,
  safetyNetPathParameters,
  safetyNetSchemas,
  safetyNetTags,
} from './openapi/safety-net';

/** A success response: its JSON schema (a named component; none for an empty body) and whether it carries Retry-After. */
interface Success {
  description: string;
  schema?: string;
  retryAfter?: boolean;
}

export interface Operation {
  summary: string;
  /** Anyone may call it: no API key or token (the pages an email's link opens). */
  public?: boolean;
  /** The route honours the Idempotency-Key header (functions/http/idempotency.ts). */
  idempotent?: boolean;
  body?: z.ZodType;
  query?: z.ZodObject;
  /** Status code -> the success response. */
  responses: Record<string, Success>;
  /** Status code -> every error text this route itself answers with (common ones are added). */
  errors: Record<string, string[]>;
}

/** Response body schemas, by component name (components.schemas). */
const schemas: Record<string, z.ZodType> = {
  Error: errorBodySchema,
  CreatedJob: createdJobSchema,
  Job: jobViewSchema,
  Download: downloadDescriptorSchema,
  JobPage: jobListSchema,
  WebhookDeliveries: webhookDeliveriesSchema,
  ValidationResult: completedBodySchema,
  InProgress: inProgressSchema,
  BatchResults: batchResponseSchema,
  Usage: usageViewSchema,
  ConnectedMailboxPage: connectedMailboxListSchema,
  ConnectedMailbox: connectedMailboxSchema,
  ConnectedMailboxItem: connectedMailboxItemSchema,
  ConnectedDomainPage: connectedDomainListSchema,
  ConnectedDomain: connectedDomainSchema,
  UserPage: userListSchema,
  User: userBodySchema,
  SafetyNetMailboxPage: safetyNetMailboxListSchema,
  SafetyNetMailbox: safetyNetMailboxBodySchema,
  SafetyNetSequencePage: safetyNetSequenceListSchema,
  SafetyNetSequence: sequenceBodySchema,
  ...peopleSchemas,
  ...safetyNetSchemas,
};

const ok = (description: string, schema: string): Record<string, Success> => ({
  '200': { description, schema },
});
const inProgress: Success = {
  description: 'Still in progress: poll pollUrl after Retry-After seconds',
  schema: 'InProgress',
  retryAfter: true,
};

/** The 400 texts of a list's query: paging and each enumerated filter with its values. */
function queryErrors(query: z.ZodObject): string[] {
  const properties = jsonSchema(query, 'input').properties as Record<string, { enum?: string[] }>;
  const filters = Object.entries(properties).filter(([, schema]) => schema.enum);
  return [...pagingErrors, ...filters.map(([name, schema]) => oneOfMessage(name, schema.enum!))];
}

const list = (
  query: z.ZodObject,
  what: string,
  schema: string,
): Pick<Operation, 'query' | 'responses'> & {
  errors: Record<string, string[]>;
} => ({
  query,
  responses: ok(`A page of ${what}, sorted; total counts every match`, schema),
  errors: { '400': queryErrors(query) },
});

/** The answers of the Idempotency-Key header (besides replaying the first response). */
const idempotencyErrors: Record<string, string[]> = {
  '400': [idempotencyInvalidMessage],
  '409': [idempotencyInProgressMessage],
  '422': [idempotencyMismatchMessage],
};

const idempotencyKeyParameter = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Same key and same body within 24 hours: the first response again, and no new work. Same key, other body: 422.',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
};

/**
 * The groups `/docs` shows the routes in, in this order; a route belongs to the first whose prefix its
 * path starts with (bulk before single: both start with /v1/email/validate).
 */
const tags = [
  {
    name: 'Bulk jobs',
    prefix: '/v1/email/validate-file',
    description: 'A CSV file: create a job, upload it, follow it, download the results; list and delete jobs',
  },
  {
    name: 'Single addresses',
    prefix: '/v1/email/validate',
    description: 'One address: within a time budget, in the background, and polling',
  },
  { name: 'Usage', prefix: '/v1/usage', description: "A month's validations against quota and credits" },
  {
    name: 'Mailboxes and domains',
    prefix: '/v1/connected-',
    description: 'Connected mailboxes and sending domains with their reputation',
  },
  { name: 'Users', prefix: '/v1/users', description: 'The workspace users and invites' },
  {
    name: 'Safety Net',
    prefix: '/v1/safety-net-',
    description: 'Safety Net mailboxes and sequences, and their switches',
  },
  ...peopleTags,
  ...safetyNetTags,
];

function tagOf(path: string): string {
  const tag = tags.find((t) => path.startsWith(t.prefix));
  if (!tag) throw new Error(`No OpenAPI tag for ${path} in functions/http/openapi.ts`);
  return tag.name;
}

/** What each route does, keyed by `METHOD path`. A route missing here fails the document test. */
const operations: Record<string, Operation> = {
  ...peopleOperations,
  'POST /v1/email/validate-file': {
    summary: 'Create a bulk validation job and its presigned upload URL (PUT with Content-Type: text/csv)',
    idempotent: true,
    body: createJobRequestSchema,
    responses: { '202': { description: 'The job, awaiting its upload', schema: 'CreatedJob' } },
    errors: {
      ...idempotencyErrors,
      '400': [...createJobRequestErrors, idempotencyInvalidMessage],
      '429': [concurrentJobLimitMessage],
    },
  },
  'GET /v1/email/validate-file': {
    summary: "The company's bulk jobs, newest first",
    ...list(listJobsQuery, 'jobs', 'JobPage'),
  },
  'DELETE /v1/email/validate-file/{jobId}': {
    summary:
      'Delete a job, its upload and its results (an active job is cancelled first; usage already counted stays)',
    responses: { '204': { description: 'Deleted; the job answers 404 from now on' } },
    errors: { '404': [jobNotFoundMessage] },
  },
  'GET /v1/email/validate-file/{jobId}/webhook-deliveries': {
    summary: "Each attempt of the job's completion webhook, oldest first",
    responses: ok('The attempts and the webhook status', 'WebhookDeliveries'),
    errors: { '404': [jobNotFoundMessage] },
  },
  'GET /v1/email/validate-file/{jobId}': {
    summary: 'Job status and progress',
    responses: ok('The job; statistics once completed, error once failed', 'Job'),
    errors: { '404': [jobNotFoundMessage] },
  },
  'GET /v1/email/validate-file/{jobId}/download': {
    summary:
      'Presigned GET of the results file, or of a copy with only some statuses and/or the reason column',
    query: downloadQuery,
    responses: ok('Where to download the results CSV', 'Download'),
    errors: {
      '400': downloadQueryErrors,
      '404': [jobNotFoundMessage],
      '409': [jobNotCompletedMessage, estimateNoResultsMessage, noRowIndexMessage],
      '410': [resultsExpiredMessage],
    },
  },
  'POST /v1/email/validate-file/{jobId}/run': {
    summary:
      'Run a completed estimate in full: a new job over the same upload, with the same options (nothing to upload)',
    idempotent: true,
    responses: {
      '201': {
        description:
          'The run job, as a created job is; its file is already in place (uploadUrl is not needed) and it starts processing at once',
        schema: 'CreatedJob',
      },
    },
    errors: {
      ...idempotencyErrors,
      '400': [idempotencyInvalidMessage],
      '404': [jobNotFoundMessage],
      '409': [notAnEstimateMessage, jobNotCompletedMessage, alreadyRunMessage, idempotencyInProgressMessage],
      '410': [estimateFileGoneMessage],
      '429': [concurrentJobLimitMessage],
    },
  },
  'POST /v1/email/validate': {
    summary: 'Validate one address within the sync budget (SYNC_BUDGET_MS)',
    body: validationRequestSchema,
    responses: {
      ...ok(
        'The verdict. A publishable key (mv_pub_, the signup-form widget) gets only email, result and didYouMean',
        'ValidationResult',
      ),
      '202': { ...inProgress, description: 'Over the budget: poll pollUrl after Retry-After seconds' },
    },
    errors: { '400': validationRequestErrors, '402': [quotaExceededMessage] },
  },
  'POST /v1/email/validate-batch': {
    summary: 'Validate up to 100 addresses within the sync budget; results in input order',
    body: batchRequestSchema,
    responses: ok(
      'Each address’s verdict, or {email, pollUrl, requestId} for one still running (poll it)',
      'BatchResults',
    ),
    errors: {
      '400': batchRequestErrors,
      '402': [quotaExceededMessage],
    },
  },
  'POST /v1/email/validate-async': {
    summary: 'Accept one address and validate it in the background',
    idempotent: true,
    body: validationRequestSchema,
    responses: { '202': { ...inProgress, description: 'Accepted: poll pollUrl after Retry-After seconds' } },
    errors: {
      ...idempotencyErrors,
      '400': [...validationRequestErrors, idempotencyInvalidMessage],
      '402': [quotaExceededMessage],
    },
  },
  'GET /v1/usage': {
    summary:
      'Validations used in a calendar month (UTC), split by source, with the quota, credits and what remains',
    query: usageQuery,
    responses: ok('The month’s usage; remaining counts what running bulk jobs hold as used', 'Usage'),
    errors: { '400': [invalidMonthMessage] },
  },
  'GET /v1/email/validate/{requestId}': {
    summary: 'Poll a validation request; clients branch on the status code',
    responses: { ...ok('The verdict, as the sync endpoint’s 200', 'ValidationResult'), '202': inProgress },
    errors: { '404': [REQUEST_NOT_FOUND], '500': [FAILED_MESSAGE, OVERDUE_MESSAGE] },
  },
  'GET /v1/connected-mailboxes': {
    summary: 'Connected mailboxes with their reputation over a named window',
    ...list(listConnectedMailboxesQuery, 'mailboxes', 'ConnectedMailboxPage'),
  },
  'GET /v1/connected-mailboxes/{id}': {
    summary: 'One connected mailbox with its daily reputation history',
    query: detailWindowQuery,
    responses: ok('The mailbox and its history over the window', 'ConnectedMailbox'),
    errors: { '400': [...windowErrors], '404': ['Connected mailbox not found'] },
  },
  'POST /v1/connected-mailboxes': {
    summary:
      'Connect a mailbox by its IMAP and SMTP submission settings (admin). Both logins are checked at once; the passwords are encrypted and never returned',
    body: connectMailboxBody,
    responses: {
      '201': {
        description: 'The connected mailbox (reputation null until measured)',
        schema: 'ConnectedMailboxItem',
      },
    },
    errors: { '400': connectMailboxErrors, '403': [adminOnlyMessage], '409': [alreadyConnectedMessage] },
  },
  'DELETE /v1/connected-mailboxes/{id}': {
    summary: 'Disconnect a mailbox (admin): its credentials and reputation series are deleted',
    responses: { '204': { description: 'Disconnected; connecting the address again gives a new id' } },
    errors: { '403': [adminOnlyMessage], '404': [mailboxNotFoundMessage] },
  },
  'GET /v1/connected-domains': {
    summary: 'Sending domains with current reputation and mailbox count',
    ...list(listConnectedDomainsQuery, 'domains', 'ConnectedDomainPage'),
  },
  'GET /v1/connected-domains/{domainName}': {
    summary: 'One domain’s daily reputation history',
    query: detailWindowQuery,
    responses: ok('The domain and its history over the window', 'ConnectedDomain'),
    errors: { '400': [...windowErrors], '404': ['Connected domain not found'] },
  },
  'GET /v1/users': {
    summary: 'Users, pending invites included',
    ...list(listUsersQuery, 'users', 'UserPage'),
  },
  'GET /v1/users/{id}': {
    summary: 'One active user',
    responses: ok('The user', 'User'),
    errors: { '404': ['User not found'] },
  },
  'POST /v1/users': {
    summary: 'Invite a user (needs the inviteUsers permission)',
    body: inviteBody,
    responses: {
      '201': { description: 'The invited user', schema: 'User' },
      ...ok('Already invited: the invite is refreshed, no second seat', 'User'),
    },
    errors: {
      '400': inviteBodyErrors,
      '403': [permissionMissingMessage('inviteUsers')],
      '409': [inviteConflictMessages.active, inviteConflictMessages.noSeat],
    },
  },
  'GET /v1/safety-net-mailboxes': {
    summary: 'Safety Net mailboxes',
    ...list(listSafetyNetMailboxesQuery, 'Safety Net mailboxes', 'SafetyNetMailboxPage'),
  },
  'GET /v1/safety-net-mailboxes/{id}': {
    summary: 'One Safety Net mailbox',
    responses: ok('The mailbox', 'SafetyNetMailbox'),
    errors: { '404': ['Safety Net mailbox not found'] },
  },
  'PATCH /v1/safety-net-mailboxes/{id}': {
    summary: 'Switch the Safety Net on or off for a mailbox (idempotent)',
    body: activationBody,
    responses: ok('The updated mailbox', 'SafetyNetMailbox'),
    errors: { '400': [activationRejectedMessage], '404': ['Safety Net mailbox not found'] },
  },
  'GET /v1/safety-net-sequences': {
    summary: 'Sequences, one row per owner',
    ...list(listSafetyNetSequencesQuery, 'sequence rows', 'SafetyNetSequencePage'),
  },
  'GET /v1/safety-net-sequences/{id}': {
    summary: 'One sequence row',
    responses: ok('The sequence row', 'SafetyNetSequence'),
    errors: { '404': ['Safety Net sequence not found'] },
  },
  'PATCH /v1/safety-net-sequences/{id}': {
    summary: 'Switch the Safety Net for a sequence, under every owner (needs the toggleSequences permission)',
    body: activationBody,
    responses: ok('The updated sequence row', 'SafetyNetSequence'),
    errors: {
      '400': [activationRejectedMessage],
      '403': [permissionMissingMessage('toggleSequences')],
      '404': ['Safety Net sequence not found'],
    },
  },
  ...safetyNetOperations,
};

/** Errors every authenticated route can answer, with their exact texts. */
const commonErrors: Record<string, string[]> = {
  '400': [invalidJsonMessage, tooDeepJsonMessage],
  '401': [missingKeyMessage, invalidTokenMessage],
  '403': [invalidKeyMessage],
  '429': [rateLimitMessage],
  '500': [internalErrorMessage],
  '503': [unavailableMessage],
};

/** Statuses whose answers carry Retry-After (seconds). */
const retryAfterStatuses = new Set(['429', '503']);

/** What a route without authentication cannot answer (no key or token to refuse, no company to limit). */
const authenticatedOnly = new Set(['401', '403', '429']);

function commonErrorsOf(operation: Operation): Record<string, string[]> {
  if (!operation.public) return commonErrors;
  // nor, without a JSON body (a browser redirect, a platform's signed webhook), a malformed one
  return Object.fromEntries(
    Object.entries(commonErrors).filter(
      ([status]) => !authenticatedOnly.has(status) && (operation.body || status !== '400'),
    ),
  );
}

/** Every error text of a route's status, the route's own first. */
function errorTexts(operation: Operation, status: string): string[] {
  return [...new Set([...(operation.errors[status] ?? []), ...(commonErrorsOf(operation)[status] ?? [])])];
}

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  return rest;
}

const retryAfterHeader = {
  'Retry-After': { description: 'Seconds to wait before trying again', schema: { type: 'integer' } },
};

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

function errorResponse(texts: string[]) {
  return {
    description: texts.map((text) => `"${text}"`).join('; '),
    content: {
      'application/json': {
        schema: ref('Error'),
        examples: Object.fromEntries(texts.map((text, i) => [`error${i + 1}`, { value: { error: text } }])),
      },
    },
  };
}

function pathParameter(name: string) {
  const schema =
    name === 'domainName'
      ? { type: 'string' }
      : (safetyNetPathParameters[name] ?? jsonSchema(uuidParam, 'input'));
  return { name, in: 'path', required: true, schema };
}

function operationObject(route: RouteSpec, operation: Operation) {
  const pathParameters = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => pathParameter(m[1]!));
  const queryProperties = operation.query
    ? (jsonSchema(operation.query, 'input').properties as Record<string, Record<string, unknown>>)
    : {};
  const queryParameters = Object.entries(queryProperties).map(([name, schema]) => ({
    name,
    in: 'query',
    required: false,
    schema,
  }));
  const responses: Record<string, unknown> = {};
  for (const [status, success] of Object.entries(operation.responses))
    responses[status] = {
      description: success.description,
      ...(success.retryAfter ? { headers: retryAfterHeader } : {}),
      ...(success.schema ? { content: { 'application/json': { schema: ref(success.schema) } } } : {}),
    };
  for (const status of new Set([
    ...Object.keys(commonErrorsOf(operation)),
    ...Object.keys(operation.errors),
  ])) {
    const response = errorResponse(errorTexts(operation, status));
    responses[status] = retryAfterStatuses.has(status)
      ? { ...response, headers: retryAfterHeader }
      : response;
  }
  return {
    operationId: route.function,
    tags: [tagOf(route.path)],
    summary: operation.summary,
    security: operation.public ? [] : [{ apiKey: [] }, { personToken: [] }],
    parameters: [
      ...pathParameters,
      ...queryParameters,
      ...(operation.idempotent ? [idempotencyKeyParameter] : []),
    ],
    ...(operation.body
      ? {
          requestBody: {
            required: true,
            content: { 'application/json': { schema: jsonSchema(operation.body, 'output') } },
          },
        }
      : {}),
    responses: Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b))),
  };
}

export function buildOpenApiDocument(): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const key = `${route.method} ${route.path}`;
    const operation = operations[key];
    if (!operation) throw new Error(`No OpenAPI description for ${key} in functions/http/openapi.ts`);
    paths[route.path] ??= {};
    paths[route.path]![route.method.toLowerCase()] = operationObject(route, operation);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'mailvet',
      version: packageVersion,
      description:
        'Email validation: bulk CSV, single addresses, workspace data. Keys are sorted at every level of every JSON body; errors are {"error": "..."}. Unknown routes: 404 {"error":"Not found"}. The same reference as prose, with the choices made where the contract is silent: docs/api.md in the repository.',
    },
    // one entry per name: a group may own several prefixes (the first says what it is)
    tags: tags
      .filter((tag, i) => tags.findIndex((other) => other.name === tag.name) === i)
      .map(({ name, description }) => ({ name, description })),
    servers: [{ url: 'http://localhost:3000', description: 'npm start' }],
    security: [{ apiKey: [] }, { personToken: [] }],
    components: {
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
        personToken: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: "A person's access token from the user pool (the console's sign-in): docs/people.md",
        },
      },
      schemas: Object.fromEntries(
        Object.entries(schemas).map(([name, schema]) => [name, jsonSchema(schema, 'output')]),
      ),
    },
    paths,
  };
}
