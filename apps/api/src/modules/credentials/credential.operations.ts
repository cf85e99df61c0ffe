import {
  apiKeyCreateSchema,
  apiKeyCreatedSchema,
  apiKeySchema,
  tokenCreateSchema,
  tokenCreatedSchema,
  tokenSchema,
  uuidParam,
} from '@relay/contracts';
import { z } from 'zod';
import { defineOperation } from '../../composition/define-operation';

const own = { role: 'viewer', scope: null } as const;
const manage = { role: 'admin', scope: 'organization:manage' } as const;
// An API key passes the row but has no user, hence no personal tokens.
const tokens = {
  tag: 'auth',
  access: own,
  refuseApiKeys: 'Personal tokens belong to users; an API key has none.',
  notFound: 'No such token.',
} as const;
const keys = { tag: 'organization', access: manage, notFound: 'No such API key.' } as const;
const created = 'Created; the token is shown once.';

export const credentialOperations = [
  defineOperation({
    ...tokens,
    method: 'get',
    path: '/api/auth/tokens',
    summary: "The caller's personal tokens",
    responses: { 200: { description: 'Tokens (no secrets).', schema: z.object({ tokens: z.array(tokenSchema) }) } },
    handler: async ({ services, principal }) => ({
      status: 200,
      body: { tokens: await services.credentials.listTokens(principal) },
    }),
  }),
  defineOperation({
    ...tokens,
    method: 'post',
    path: '/api/auth/tokens',
    idempotent: { secretField: 'token' },
    summary: 'Create a personal token',
    body: tokenCreateSchema,
    responses: { 201: { description: created, schema: tokenCreatedSchema } },
    handler: async ({ services, principal, body }) => ({
      status: 201,
      body: await services.credentials.createToken(principal, body),
    }),
  }),
  defineOperation({
    ...tokens,
    method: 'delete',
    path: '/api/auth/tokens/:id',
    summary: "Revoke one of the caller's tokens",
    params: uuidParam,
    responses: { 204: { description: 'Revoked.' } },
    handler: async ({ services, principal, params }) => {
      await services.credentials.deleteToken(principal, params.id);
      return { status: 204 };
    },
  }),
  defineOperation({
    ...keys,
    method: 'get',
    path: '/api/api-keys',
    summary: 'Organization API keys',
    responses: { 200: { description: 'Keys (no secrets).', schema: z.object({ api_keys: z.array(apiKeySchema) }) } },
    handler: async ({ services, principal }) => ({
      status: 200,
      body: { api_keys: await services.credentials.listApiKeys(principal) },
    }),
  }),
  defineOperation({
    ...keys,
    method: 'post',
    path: '/api/api-keys',
    idempotent: { secretField: 'token' },
    summary: 'Create an API key with scopes',
    body: apiKeyCreateSchema,
    responses: { 201: { description: created, schema: apiKeyCreatedSchema } },
    handler: async ({ services, principal, body }) => ({
      status: 201,
      body: await services.credentials.createApiKey(principal, body),
    }),
  }),
  defineOperation({
    ...keys,
    method: 'delete',
    path: '/api/api-keys/:id',
    summary: 'Delete an API key',
    params: uuidParam,
    responses: { 204: { description: 'Deleted.' } },
    handler: async ({ services, principal, params }) => {
      await services.credentials.deleteApiKey(principal, params.id);
      return { status: 204 };
    },
  }),
];
