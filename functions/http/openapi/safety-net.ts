// The Safety Net connections' part of the OpenAPI document (functions/http/openapi.ts spreads it in):
// connections and their OAuth callback, the platforms' webhooks, preventions and the allowlist.
import {
  authorizeBodySchema,
  badStateMessage,
  integrationListSchema,
  notConnectedMessage,
  refusedCodeMessage,
  unknownPlatformMessage,
} from '../../domain/safety-net/connections';
import { adminOnlyMessage } from '../../domain/safety-net/admin';
import {
  allowlistSchema,
  invalidAllowEmailMessage,
  listPreventionsQuery,
  preventionListSchema,
} from '../../domain/safety-net/records';
import { badSignatureMessage } from '../../domain/safety-net/webhooks';
import { pagingErrors } from '../../domain/workspace/query';
import type { Operation } from '../openapi';

export const safetyNetSchemas = {
  AuthorizeUrl: authorizeBodySchema,
  Integrations: integrationListSchema,
  PreventionPage: preventionListSchema,
  Allowlist: allowlistSchema,
};

export const safetyNetTags = [
  {
    name: 'Safety Net connections',
    prefix: '/v1/integrations',
    description: 'Connect Outreach or Salesloft (OAuth), sync, disconnect; the platforms’ webhooks',
  },
  {
    name: 'Safety Net preventions',
    prefix: '/v1/safety-net/',
    description: 'The emails the Safety Net stopped, and the allowlist',
  },
];

/** Path parameters that are not UUIDs. */
export const safetyNetPathParameters: Record<string, Record<string, unknown>> = {
  platform: { type: 'string', enum: ['outreach', 'salesloft'] },
  email: { type: 'string', format: 'email' },
  companyId: { type: 'string' },
};

export const safetyNetOperations: Record<string, Operation> = {
  'POST /v1/integrations/{platform}': {
    summary: 'Start connecting a platform (admin): the URL to send the browser to',
    responses: {
      '200': {
        description: 'The platform’s authorize URL (its state works once, for 10 minutes)',
        schema: 'AuthorizeUrl',
      },
    },
    errors: { '403': [adminOnlyMessage], '404': [unknownPlatformMessage] },
  },
  'GET /v1/integrations/{platform}/callback': {
    summary: 'Where the platform sends the browser back (no key): stores the grant, starts a sync',
    public: true,
    responses: { '302': { description: 'To the console’s Safety Net page' } },
    errors: { '400': [badStateMessage, refusedCodeMessage], '404': [unknownPlatformMessage] },
  },
  'GET /v1/integrations': {
    summary: 'The company’s Safety Net connections, their state and last sync',
    responses: { '200': { description: 'The connections', schema: 'Integrations' } },
    errors: {},
  },
  'POST /v1/integrations/{platform}/sync': {
    summary: 'Sync the connection now',
    responses: { '202': { description: 'The sync is queued; GET /v1/integrations shows it' } },
    errors: { '404': [unknownPlatformMessage, notConnectedMessage] },
  },
  'DELETE /v1/integrations/{platform}': {
    summary: 'Disconnect (admin): the grant is forgotten and the platform’s items leave the lists',
    responses: { '204': { description: 'Disconnected' } },
    errors: { '403': [adminOnlyMessage], '404': [unknownPlatformMessage, notConnectedMessage] },
  },
  'POST /v1/integrations/{platform}/webhooks/{companyId}': {
    summary: 'A platform’s webhook (no key; signed: Outreach-Webhook-Signature or x-salesloft-signature)',
    public: true,
    responses: { '204': { description: 'Accepted: the connection’s scheduled emails are read now' } },
    errors: { '401': [badSignatureMessage], '404': ['Not found'] },
  },
  'GET /v1/safety-net/preventions': {
    summary: 'The emails the Safety Net stopped, newest first',
    query: listPreventionsQuery,
    responses: {
      '200': { description: 'A page of preventions; total counts them all', schema: 'PreventionPage' },
    },
    errors: { '400': [...pagingErrors] },
  },
  'GET /v1/safety-net/allowlist': {
    summary: 'The addresses the Safety Net never stops (admin)',
    responses: { '200': { description: 'The allowlist, lower-cased', schema: 'Allowlist' } },
    errors: { '403': [adminOnlyMessage] },
  },
  'PUT /v1/safety-net/allowlist/{email}': {
    summary: 'Allowlist an address (admin; any case)',
    responses: { '204': { description: 'Allowlisted' } },
    errors: { '400': [invalidAllowEmailMessage], '403': [adminOnlyMessage] },
  },
  'DELETE /v1/safety-net/allowlist/{email}': {
    summary: 'Remove an address from the allowlist (admin)',
    responses: { '204': { description: 'Removed (or was not there)' } },
    errors: { '400': [invalidAllowEmailMessage], '403': [adminOnlyMessage] },
  },
};
