// The OpenAPI 3.1 document of the HTTP API, built from the route table (functions/wiring.ts) and the
// very zod schemas the handlers parse with, so the document cannot drift from the code.
// `npm run openapi` writes it to docs/openapi.json; a test checks the file is current.
import { z } from 'zod';
import { createJobRequestSchema } from '../domain/bulk/create-job-request';
import { activationBody, inviteBody } from '../domain/workspace/bodies';
import { querySchema as connectedDomainsQuery } from '../handlers/list-connected-domains';
import { querySchema as connectedMailboxesQuery } from '../handlers/list-connected-mailboxes';
import { querySchema as safetyNetMailboxesQuery } from '../handlers/list-safety-net-mailboxes';
import { querySchema as safetyNetSequencesQuery } from '../handlers/list-safety-net-sequences';
import { querySchema as usersQuery } from '../handlers/list-users';
import { routes, type RouteSpec } from '../wiring';

/** The single-email body is parsed by hand (exact texts); this schema describes the same rules. */
const validationRequestBody = z.object({
  email: z
    .string()
    .max(10_000)
    .describe('The address to validate; blank or missing is 400 "email is required"'),
  metadata: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('Echoed in the result; at most 16 KiB as JSON'),
});

const detailWindowQuery = z.object({
  startDate: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/)
    .optional()
    .describe('Default: 89 days before endDate'),
  endDate: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/)
    .optional()
    .describe('Default: today (UTC)'),
});

interface Operation {
  summary: string;
  body?: z.ZodType;
  query?: z.ZodObject;
  /** Status code -> description. Every authenticated route also answers 401, 403, 429 and 503. */
  responses: Record<string, string>;
}

const list = (what: string): Operation['responses'] => ({
  '200': `A page of ${what}: {limit, offset, total, <list>} (decisions.md names the list key)`,
  '400': 'A bad limit, offset or filter; the error names the parameter',
});
const detail = (what: string): Operation['responses'] => ({
  '200': what,
  '404': 'Unknown id, or another company’s',
});

/** What each route does, keyed by `METHOD path`. A route missing here fails the document test. */
export const operations: Record<string, Operation> = {
  'POST /v1/email/validate-file': {
    summary: 'Create a bulk validation job and its presigned upload URL (PUT with Content-Type: text/csv)',
    body: createJobRequestSchema,
    responses: {
      '202': '{jobId, status: "awaiting_upload", uploadExpiresIn, uploadUrl}',
      '400': 'A body rule of spec 7.1, with its exact text',
      '429': 'Five active jobs already (Retry-After: 60), or the rate limit (Retry-After: 1)',
    },
  },
  'GET /v1/email/validate-file/{jobId}': {
    summary: 'Job status and progress',
    responses: {
      '200':
        '{completedAt, createdAt, encoding?, error?, jobId, percentComplete, processedEmails, statistics, status, totalEmails}; status is awaiting_upload, processing, completed, failed or expired; encoding is the detected text encoding of the upload (utf-8, utf-16le, windows-1252, ...) once scanned',
      '404': '{"error":"Job not found"}',
    },
  },
  'GET /v1/email/validate-file/{jobId}/download': {
    summary: 'Presigned GET of the results file, valid 3600 s',
    responses: {
      '200': '{downloadUrl, expiresIn: 3600, format: "csv", jobId}',
      '404': '{"error":"Job not found"}',
      '409': '{"error":"Job is not completed"}',
    },
  },
  'POST /v1/email/validate': {
    summary: 'Validate one address within the sync budget (SYNC_BUDGET_MS)',
    body: validationRequestBody,
    responses: {
      '200':
        '{didYouMean?, domain, email, mailbox, metadata?, requestId, result: {reason, status, subStatus}, validatedAt}',
      '202': 'Over the budget: {pollUrl, requestId, retryAfter}',
      '400': '{"error":"email is required"} and other body errors',
    },
  },
  'POST /v1/email/validate-async': {
    summary: 'Accept one address and validate it in the background',
    body: validationRequestBody,
    responses: { '202': '{pollUrl, requestId, retryAfter}', '400': '{"error":"email is required"}' },
  },
  'GET /v1/email/validate/{requestId}': {
    summary: 'Poll a validation request; clients branch on the status code',
    responses: {
      '200': 'The result, as the sync endpoint’s 200',
      '202': 'Still in progress: {pollUrl, requestId, retryAfter}',
      '404': 'Unknown requestId, or another company’s',
      '500': 'Failed irrecoverably',
    },
  },
  'GET /v1/connected-mailboxes': {
    summary: 'Connected mailboxes with their reputation over a window',
    query: connectedMailboxesQuery,
    responses: list('mailboxes (key "mailboxes", with reputationRange {endDate, name, startDate})'),
  },
  'GET /v1/connected-mailboxes/{id}': {
    summary: 'One connected mailbox with its daily reputation history',
    query: detailWindowQuery,
    responses: {
      ...detail('The mailbox with currentReputation and history [{date, reputation}]'),
      '400': 'Bad dates',
    },
  },
  'GET /v1/connected-domains': {
    summary: 'Sending domains with current reputation and mailbox count',
    query: connectedDomainsQuery,
    responses: list('domains (key "domains")'),
  },
  'GET /v1/connected-domains/{domainName}': {
    summary: 'One domain’s daily reputation history',
    query: detailWindowQuery,
    responses: { ...detail('The domain with its history [{date, reputation}]'), '400': 'Bad dates' },
  },
  'GET /v1/users': {
    summary: 'Users, invited ones included',
    query: usersQuery,
    responses: list('users (key "users")'),
  },
  'GET /v1/users/{id}': { summary: 'One user', responses: detail('The user') },
  'POST /v1/users': {
    summary: 'Invite a user (needs the invite permission)',
    body: inviteBody,
    responses: {
      '201': 'The invited user',
      '200': 'Already invited: the invite is refreshed, no second seat',
      '400': 'A bad body',
      '409': 'An active user has this email, or no seat is free',
    },
  },
  'GET /v1/safety-net-mailboxes': {
    summary: 'Safety Net mailboxes',
    query: safetyNetMailboxesQuery,
    responses: list('mailboxes (key "mailboxes")'),
  },
  'GET /v1/safety-net-mailboxes/{id}': {
    summary: 'One Safety Net mailbox',
    responses: detail('The mailbox'),
  },
  'PATCH /v1/safety-net-mailboxes/{id}': {
    summary: 'Switch the Safety Net on or off for a mailbox (idempotent)',
    body: activationBody,
    responses: { ...detail('The updated mailbox'), '400': 'Body other than {"activated": boolean}' },
  },
  'GET /v1/safety-net-sequences': {
    summary: 'Sequences, one row per owner',
    query: safetyNetSequencesQuery,
    responses: list('sequences (key "sequences")'),
  },
  'GET /v1/safety-net-sequences/{id}': { summary: 'One sequence row', responses: detail('The sequence row') },
  'PATCH /v1/safety-net-sequences/{id}': {
    summary: 'Switch the Safety Net for a sequence, under every owner (needs the toggle permission)',
    body: activationBody,
    responses: { ...detail('The updated sequence row'), '400': 'Body other than {"activated": boolean}' },
  },
};

const common: Record<string, string> = {
  '401': '{"error":"Missing API key"}',
  '403': '{"error":"Invalid API key"}, or the key’s creator lacks the permission of a write',
  '429': '{"error":"Rate limit exceeded"}, Retry-After: 1',
  '503': '{"error":"Service temporarily unavailable"}, with Retry-After',
};

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  return rest;
}

function operationObject(route: RouteSpec, operation: Operation) {
  const pathParameters = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
    name: m[1],
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
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
  for (const [code, description] of Object.entries({ ...common, ...operation.responses }).sort())
    responses[code] = { description, content: { 'application/json': { schema: { type: 'object' } } } };
  return {
    operationId: route.function,
    summary: operation.summary,
    security: [{ apiKey: [] }],
    parameters: [...pathParameters, ...queryParameters],
    ...(operation.body
      ? {
          requestBody: {
            required: true,
            content: { 'application/json': { schema: jsonSchema(operation.body, 'output') } },
          },
        }
      : {}),
    responses,
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
      version: '1.0.0',
      description:
        'Email validation: bulk CSV, single addresses, workspace data. Keys are sorted at every level of every JSON body; errors are {"error": "..."}. Unknown routes: 404 {"error":"Not found"}; malformed JSON: 400 {"error":"Invalid JSON body"}. Where the spec is silent, see README.md and decisions.md.',
    },
    servers: [{ url: 'http://localhost:3000', description: 'npm start' }],
    components: { securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } } },
    paths,
  };
}
