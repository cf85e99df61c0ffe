import { ROLES, SCOPES } from '@relay/core';
import { z } from 'zod';
import { dateTimeInput, pageEnvelope, pageQuery, timestamp } from './common.schemas';

// Requests and responses of the identity routes: sessions, me, tokens, API keys, users, audit.
export const loginSchema = z.object({ username: z.string().min(1).max(64), password: z.string().min(1).max(256) });
export const tokenCreateSchema = z.object({
  name: z.string().trim().min(1).max(100),
  expires_at: dateTimeInput().optional(),
});
export const apiKeyCreateSchema = tokenCreateSchema.extend({ scopes: z.array(z.enum(SCOPES)).min(1) });
export const usernameSchema = z.string().regex(/^[A-Za-z0-9._-]{3,64}$/, '3-64 letters, digits, ".", "_" or "-"');
export const CLASSES = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^A-Za-z0-9]/];
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

export const userSchema = z.object({
  id: z.uuid(),
  username: z.string(),
  email: z.string(),
  role: z.enum(ROLES),
  disabled: z
    .boolean()
    .describe('A disabled user cannot sign in; their sessions, tokens and Basic access are refused.'),
  created_at: timestamp,
});
export const organizationSchema = z.object({ id: z.uuid(), slug: z.string(), name: z.string() });
export const tokenSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  prefix: z.string(),
  expires_at: timestamp.nullable(),
  last_used_at: timestamp.nullable(),
  created_at: timestamp,
});
export const apiKeySchema = tokenSchema.extend({ scopes: z.array(z.enum(SCOPES)) });
/** On an idempotent replay (header `Idempotent-Replayed: true`) the secret shown once is left out. */
export const secretRedacted = z
  .literal(true)
  .optional()
  .describe('Present, and the secret absent, when this is a replay of an answer under the same Idempotency-Key.');
const shownOnce = {
  token: z.string().optional().describe('The full token, shown only in this response (never in a replay).'),
  secret_redacted: secretRedacted,
};
/** A token or key as created: the only answer that carries its secret. */
export const tokenCreatedSchema = tokenSchema.extend(shownOnce);
export const apiKeyCreatedSchema = apiKeySchema.extend(shownOnce);

export const auditEntrySchema = z.object({
  id: z.uuid(),
  actor_user_id: z
    .uuid()
    .describe(
      "The acting user; for an API key's act its creator; for an operator the operator's id; otherwise the " +
        'system actor 00000000-0000-7000-8000-000000000000.',
    ),
  actor_email: z
    .string()
    .describe(
      "The actor's e-mail; `<username>@operator.invalid` for an operator, `system@relay.invalid` for the system.",
    ),
  action: z.string(),
  resource_type: z.string(),
  resource_id: z
    .uuid()
    .describe('The resource acted on; for a bulk action a new id of the operation (affected ids in metadata.ids).'),
  metadata: z.record(z.string(), z.unknown()),
  created_at: z.string().describe('ISO 8601 UTC, no zone offset.'),
});
export const auditPageSchema = pageEnvelope('entries', auditEntrySchema);
/** One audit action as written, `<resource>.<verb>` (`rule.created`), or several separated by commas. */
const AUDIT_ACTIONS = /^[a-z0-9_]+(\.[a-z0-9_]+)+(,[a-z0-9_]+(\.[a-z0-9_]+)+)*$/;
/** The filters of `GET /api/audit`; every one given must hold (AND). */
export const auditListQuery = pageQuery.extend({
  action: z
    .string()
    .max(2000)
    .regex(AUDIT_ACTIONS, 'an action such as rule.created, or several separated by commas')
    .optional()
    .describe('Exact action, or several separated by commas (any of them), e.g. `rule.created,rule.deleted`.'),
  actor_user_id: z.uuid().optional().describe('Entries of this actor (`actor_user_id`).'),
  actor_email: z.string().trim().min(1).max(320).optional().describe("Entries whose actor's e-mail is exactly this."),
  resource_type: z.string().trim().min(1).max(64).optional().describe('Exact resource type, e.g. `rule`.'),
  resource_id: z.uuid().optional().describe('Entries about this resource (`resource_id`).'),
  from: dateTimeInput().optional().describe('Created at or after (inclusive), ISO 8601 with a zone.'),
  to: dateTimeInput().optional().describe('Created before (exclusive), ISO 8601 with a zone.'),
});

const meUser = z.object({ id: z.uuid(), username: z.string(), email: z.string(), role: z.enum(ROLES) });
const operatorRef = z.object({ id: z.uuid(), username: z.string() });
/** The calling user or API key, and the mechanism in effect. */
export const meSchema = z.object({
  mechanism: z.enum(['session', 'token', 'basic']),
  login_method: z
    .enum(['password', 'idp'])
    .optional()
    .describe('For a session: how it was started, with a password or through the identity provider.'),
  kind: z.enum(['user', 'api_key']),
  user: meUser.nullable(),
  organization: z.object({ id: z.uuid(), slug: z.string().optional(), name: z.string().optional() }),
  role: z.enum(ROLES),
  scopes: z
    .array(z.enum(SCOPES))
    .describe('The scopes the principal can use on at least one route: allowed by its role and its API-key scopes.'),
});
/** A platform operator's session: no organization, role or scopes. */
export const operatorMeSchema = z.object({
  mechanism: z.literal('session'),
  kind: z.literal('operator'),
  operator: operatorRef,
  user: z.null(),
  organization: z.null(),
  role: z.null(),
  scopes: z.array(z.never()),
});
/** `GET /api/auth/me` without credentials: no mechanism in effect, nothing else either. */
export const anonymousMeSchema = z.object({
  mechanism: z.literal('none').describe('No credentials were sent: nothing is in effect.'),
  kind: z.null(),
  user: z.null(),
  organization: z.null(),
  role: z.null(),
  scopes: z.array(z.never()),
});
export const loginResultSchema = z.union([
  z.object({ mechanism: z.literal('session'), user: meUser.nullable(), organization: z.object({ id: z.uuid() }) }),
  z.object({ mechanism: z.literal('session'), kind: z.literal('operator'), operator: operatorRef }),
]);
