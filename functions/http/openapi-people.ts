// The OpenAPI entries of people and sign-in (docs/people.md), spread into functions/http/openapi.ts.
import type { z } from 'zod';
import {
  acceptBodyMessage,
  acceptInviteBodySchema,
  acceptedUserSchema,
  inviteGoneMessage,
  personElsewhereMessage,
} from '../domain/people/accept-invite';
import {
  adminOnlyMessage,
  apiKeyBodySchema,
  apiKeyListSchema,
  createApiKeyBodySchema,
  createdApiKeySchema,
  keyNameMessage,
} from '../domain/people/api-keys';
import { passwordRefusal } from '../domain/people/password-policy';
import {
  resetAnswerSchema,
  resetConfirmBodyMessage,
  resetConfirmBodySchema,
  resetGoneMessage,
  resetRequestBodyMessage,
  resetRequestBodySchema,
} from '../domain/people/password-reset';

interface PeopleOperation {
  summary: string;
  public?: boolean;
  body?: z.ZodType;
  responses: Record<string, { description: string; schema?: string }>;
  errors: Record<string, string[]>;
}

export const peopleSchemas: Record<string, z.ZodType> = {
  AcceptedUser: acceptedUserSchema,
  ApiKey: apiKeyBodySchema,
  ApiKeyList: apiKeyListSchema,
  CreatedApiKey: createdApiKeySchema,
  PasswordResetAnswer: resetAnswerSchema,
};

export const peopleTags = [
  {
    name: 'People and API keys',
    prefix: '/v1/invites',
    description: 'Accepting an invite (no key: the email link), and an admin managing their own API keys',
  },
  { name: 'People and API keys', prefix: '/v1/api-keys', description: '' },
  { name: 'People and API keys', prefix: '/v1/password-resets', description: '' },
];

export const peopleOperations: Record<string, PeopleOperation> = {
  'POST /v1/invites/accept': {
    summary:
      "Accept an invite with its link's one-time token: the invitee's password makes them an active user",
    public: true,
    body: acceptInviteBodySchema,
    responses: {
      '200': {
        description: "The user, now active (id, createdAt, the invite's role)",
        schema: 'AcceptedUser',
      },
    },
    errors: {
      '400': [acceptBodyMessage, passwordRefusal('password')!],
      '409': [personElsewhereMessage],
      '410': [inviteGoneMessage],
    },
  },
  'POST /v1/password-resets': {
    summary: 'Email a one-time link to choose a new password: the same answer for any address',
    public: true,
    body: resetRequestBodySchema,
    responses: {
      '202': {
        description: 'Accepted (whether or not the address has an account)',
        schema: 'PasswordResetAnswer',
      },
    },
    errors: { '400': [resetRequestBodyMessage] },
  },
  'POST /v1/password-resets/confirm': {
    summary: "Set a new password with the reset link's one-time token",
    public: true,
    body: resetConfirmBodySchema,
    responses: { '200': { description: 'The password is changed', schema: 'PasswordResetAnswer' } },
    errors: { '400': [resetConfirmBodyMessage, passwordRefusal('password')!], '410': [resetGoneMessage] },
  },
  'GET /v1/api-keys': {
    summary: "The calling admin's own API keys (hints only, never the keys)",
    responses: { '200': { description: 'The keys, oldest first', schema: 'ApiKeyList' } },
    errors: { '403': [adminOnlyMessage] },
  },
  'POST /v1/api-keys': {
    summary: 'Create an API key for the calling admin; the key is in this answer only',
    body: createApiKeyBodySchema,
    responses: { '201': { description: 'The new key, shown once', schema: 'CreatedApiKey' } },
    errors: { '400': [keyNameMessage], '403': [adminOnlyMessage] },
  },
  'DELETE /v1/api-keys/{id}': {
    summary: "Revoke one of the calling admin's own API keys (requests with it get 403 from then on)",
    responses: { '200': { description: 'The key, with revokedAt', schema: 'ApiKey' } },
    errors: { '403': [adminOnlyMessage], '404': ['API key not found'] },
  },
};
