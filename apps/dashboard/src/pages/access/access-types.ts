// The access answers as the dashboard reads them: users, personal tokens, API keys and audit entries.

import type { AnswerOf } from '@relay/client';

export const ROLES = ['viewer', 'admin'] as const;
export type Role = (typeof ROLES)[number];
export const SCOPES = ['events:read', 'webhooks:send', 'rules:read', 'rules:write', 'organization:manage'] as const;
export type Scope = (typeof SCOPES)[number];

export type User = AnswerOf<'/api/users', 'get'>['users'][number];
export type Token = AnswerOf<'/api/auth/tokens', 'get'>['tokens'][number] & { scopes?: string[] };
/** A token or key as created: the only answer carrying the secret (absent on an idempotent replay). */
export type CreatedToken = AnswerOf<'/api/api-keys', 'post'> | AnswerOf<'/api/auth/tokens', 'post'>;
export type AuditEntry = AnswerOf<'/api/audit', 'get'>['entries'][number];
export type Page = Omit<AnswerOf<'/api/audit', 'get'>, 'entries'>;
