import { ROLES, SCOPES } from '@relay/core';
import { z } from 'zod';
import { pageEnvelope, pageQuery, timestamp, uuidParam } from '../openapi/common.schemas';
import { operations } from '../openapi/operation';

// Requests and responses of the identity routes: sessions, me, tokens, API keys, users, audit.
export const loginSchema = z.object({ username: z.string().min(1).max(64), password: z.string().min(1).max(256) });
export const tokenCreateSchema = z.object({
  name: z.string().trim().min(1).max(100),
  expires_at: z.iso.datetime({ offset: true }).optional(),
});
export const apiKeyCreateSchema = tokenCreateSchema.extend({ scopes: z.array(z.enum(SCOPES)).min(1) });
export const usernameSchema = z.string().regex(/^[A-Za-z0-9._-]{3,64}$/, '3-64 letters, digits, ".", "_" or "-"');
const CLASSES = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^A-Za-z0-9]/];
/** A password of at least 12 characters, and of at least three kinds of characters unless it is 16 or longer. */
export const passwordSchema = z
  .string()
  .max(256)
  .refine((p) => p.length >= 12, 'at least 12 characters')
  .refine(
    (p) => p.length < 12 || p.length >= 16 || CLASSES.filter((c) => c.test(p)).length >= 3,
    'under 16 characters it needs three of: lowercase, uppercase, digits, symbols',
  )
  .refine((p) => new Set(p).size >= 5, 'too few different characters');
export const newUserSchema = z.object({
  username: usernameSchema,
  email: z.email().max(254),
  password: z.string().min(12, 'at least 12 characters').max(256),
  role: z.enum(ROLES).default('viewer'),
});
export const roleChangeSchema = z.object({ role: z.enum(ROLES) });

const userView = z.object({
  id: z.uuid(),
  username: z.string(),
  email: z.string(),
  role: z.enum(ROLES),
  created_at: timestamp,
});
const organizationView = z.object({ id: z.uuid(), slug: z.string(), name: z.string() });
const tokenView = z.object({
  id: z.uuid(),
  name: z.string(),
  prefix: z.string(),
  expires_at: timestamp.nullable(),
  last_used_at: timestamp.nullable(),
  created_at: timestamp,
});
const apiKeyView = tokenView.extend({ scopes: z.array(z.enum(SCOPES)) });
const shownOnce = { token: z.string().describe('The full token, shown only in this response.') };
const auditEntry = z.object({
  id: z.uuid(),
  actor_user_id: z.uuid().nullable(),
  actor_email: z.string().nullable(),
  action: z.string(),
  resource_type: z.string(),
  resource_id: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  created_at: z.string().describe('ISO 8601 UTC, no zone offset.'),
});
const me = z.object({
  mechanism: z.enum(['session', 'token', 'basic']),
  kind: z.enum(['user', 'api_key']),
  user: z.object({ id: z.uuid(), username: z.string(), email: z.string(), role: z.enum(ROLES) }).nullable(),
  organization: z.object({ id: z.uuid(), slug: z.string().optional(), name: z.string().optional() }),
  role: z.enum(ROLES),
  scopes: z.array(z.enum(SCOPES)),
});

export const identityOperations = operations([
  {
    method: 'post',
    path: '/api/auth/login',
    tag: 'auth',
    access: 'public',
    summary: 'Log in with a password; sets the session cookie',
    body: loginSchema,
    responses: {
      200: {
        description: 'Logged in: a user of an organization, or a platform operator (`kind: operator`).',
        schema: z.union([
          z.object({ mechanism: z.literal('session'), user: me.shape.user, organization: z.object({ id: z.uuid() }) }),
          z.object({
            mechanism: z.literal('session'),
            kind: z.literal('operator'),
            operator: z.object({ id: z.uuid(), username: z.string() }),
          }),
        ]),
      },
      401: { description: 'Wrong username or password.' },
      429: { description: 'Too many failed logins (Retry-After).' },
    },
  },
  {
    method: 'post',
    path: '/api/auth/logout',
    tag: 'auth',
    access: 'public',
    summary: 'Destroy the session',
    responses: { 204: { description: 'Logged out.' } },
  },
  {
    method: 'get',
    path: '/api/auth/me',
    tag: 'auth',
    access: 'GET /api/auth/me',
    summary: 'The calling principal and the mechanism in effect',
    responses: {
      200: {
        description:
          "The principal; for a platform operator's session `kind: operator` with `operator` and no organization.",
        schema: z.union([
          me,
          z.object({
            mechanism: z.literal('session'),
            kind: z.literal('operator'),
            operator: z.object({ id: z.uuid(), username: z.string() }),
            user: z.null(),
            organization: z.null(),
            role: z.null(),
            scopes: z.array(z.never()),
          }),
        ]),
      },
    },
  },
  {
    method: 'get',
    path: '/api/auth/tokens',
    tag: 'auth',
    access: 'GET /api/auth/tokens',
    summary: "The caller's personal tokens",
    responses: { 200: { description: 'Tokens (no secrets).', schema: z.object({ tokens: z.array(tokenView) }) } },
  },
  {
    method: 'post',
    path: '/api/auth/tokens',
    tag: 'auth',
    access: 'POST /api/auth/tokens',
    summary: 'Create a personal token',
    body: tokenCreateSchema,
    responses: { 201: { description: 'Created; the token is shown once.', schema: tokenView.extend(shownOnce) } },
  },
  {
    method: 'delete',
    path: '/api/auth/tokens/:id',
    tag: 'auth',
    access: 'DELETE /api/auth/tokens/:id',
    summary: "Revoke one of the caller's tokens",
    params: uuidParam,
    responses: { 204: { description: 'Revoked.' } },
  },
  {
    method: 'get',
    path: '/api/api-keys',
    tag: 'organization',
    access: 'GET /api/api-keys',
    summary: 'Organization API keys',
    responses: { 200: { description: 'Keys (no secrets).', schema: z.object({ api_keys: z.array(apiKeyView) }) } },
  },
  {
    method: 'post',
    path: '/api/api-keys',
    tag: 'organization',
    access: 'POST /api/api-keys',
    summary: 'Create an API key with scopes',
    body: apiKeyCreateSchema,
    responses: { 201: { description: 'Created; the token is shown once.', schema: apiKeyView.extend(shownOnce) } },
  },
  {
    method: 'delete',
    path: '/api/api-keys/:id',
    tag: 'organization',
    access: 'DELETE /api/api-keys/:id',
    summary: 'Delete an API key',
    params: uuidParam,
    responses: { 204: { description: 'Deleted.' } },
  },
  {
    method: 'get',
    path: '/api/users',
    tag: 'organization',
    access: 'GET /api/users',
    summary: 'Users of the organization',
    responses: { 200: { description: 'Users.', schema: z.object({ users: z.array(userView) }) } },
  },
  {
    method: 'post',
    path: '/api/users',
    tag: 'organization',
    access: 'POST /api/users',
    summary: 'Add a user',
    body: newUserSchema,
    responses: {
      201: { description: 'Created.', schema: userView },
      409: { description: 'Username taken (`username_taken`).' },
    },
  },
  {
    method: 'patch',
    path: '/api/users/:id/role',
    tag: 'organization',
    access: 'PATCH /api/users/:id/role',
    summary: "Change a user's role",
    params: uuidParam,
    body: roleChangeSchema,
    responses: {
      200: { description: 'Updated.', schema: userView },
      409: { description: 'The last admin cannot be demoted (`last_admin`).' },
    },
  },
  {
    method: 'get',
    path: '/api/organization',
    tag: 'organization',
    access: 'GET /api/organization',
    summary: "The caller's organization",
    responses: { 200: { description: 'The organization.', schema: organizationView } },
  },
  {
    method: 'get',
    path: '/api/audit',
    tag: 'organization',
    access: 'GET /api/audit',
    summary: 'Audit log, newest first',
    query: pageQuery,
    responses: { 200: { description: 'A page of entries.', schema: pageEnvelope('entries', auditEntry) } },
  },
]);
