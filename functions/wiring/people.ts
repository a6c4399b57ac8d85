// The functions and routes of people and sign-in (functions/domain/people/, docs/people.md), spread
// into the tables of functions/wiring.ts.
import type { FunctionSpec, RouteSpec } from '../wiring';

const apiDefaults = { timeoutSeconds: 29, memoryMb: 512 };

export const peopleFunctions: FunctionSpec[] = [
  {
    name: 'acceptInvite',
    entry: 'functions/handlers/accept-invite.ts',
    description:
      'POST /v1/invites/accept: create the person with their password, make the invite an active user',
    ...apiDefaults,
    // the link index (query), the claim (update), the users view (batch write on first use) and the
    // activation transaction (condition check, puts)
    access: { table: ['read', 'query', 'write', 'batchWrite', 'transact'] },
  },
  {
    name: 'listApiKeys',
    entry: 'functions/handlers/list-api-keys.ts',
    description: "GET /v1/api-keys: the calling admin's own API keys",
    ...apiDefaults,
    access: { table: ['read', 'write', 'query'] },
  },
  {
    name: 'createApiKey',
    entry: 'functions/handlers/create-api-key.ts',
    description: 'POST /v1/api-keys: a new API key for the calling admin, shown once',
    ...apiDefaults,
    access: { table: ['read', 'write'] },
  },
  {
    name: 'revokeApiKey',
    entry: 'functions/handlers/revoke-api-key.ts',
    description: "DELETE /v1/api-keys/{id}: revoke one of the calling admin's own API keys",
    ...apiDefaults,
    access: { table: ['read', 'write', 'query'] },
  },
  {
    name: 'requestPasswordReset',
    entry: 'functions/handlers/request-password-reset.ts',
    description:
      'POST /v1/password-resets: email a one-time link to choose a new password (same answer for any address)',
    ...apiDefaults,
    // the reset item and the outbox record (puts), the queued email
    access: { table: ['read', 'write'], sendsTo: ['invites'] },
  },
  {
    name: 'confirmPasswordReset',
    entry: 'functions/handlers/confirm-password-reset.ts',
    description: "POST /v1/password-resets/confirm: use the link's token once and set the new password",
    ...apiDefaults,
    access: { table: ['read', 'delete'] },
  },
];

export const peopleRoutes: RouteSpec[] = [
  { method: 'POST', path: '/v1/invites/accept', function: 'acceptInvite' },
  { method: 'GET', path: '/v1/api-keys', function: 'listApiKeys' },
  { method: 'POST', path: '/v1/api-keys', function: 'createApiKey' },
  { method: 'DELETE', path: '/v1/api-keys/{id}', function: 'revokeApiKey' },
  { method: 'POST', path: '/v1/password-resets', function: 'requestPasswordReset' },
  { method: 'POST', path: '/v1/password-resets/confirm', function: 'confirmPasswordReset' },
];

/**
 * The user pool's admin actions each function may call on the one pool (lib/people.ts grants exactly
 * these); every other function only verifies tokens, which needs the pool's public keys and no grant.
 */
export const peopleDirectoryAccess: Record<string, string[]> = {
  acceptInvite: [
    'cognito-idp:AdminCreateUser',
    'cognito-idp:AdminSetUserPassword',
    'cognito-idp:AdminGetUser',
    'cognito-idp:AdminDeleteUser',
  ],
  requestPasswordReset: ['cognito-idp:AdminGetUser'],
  confirmPasswordReset: ['cognito-idp:AdminSetUserPassword'],
};
