// The access answers as the dashboard reads them: users, personal tokens, API keys and audit entries.

export const ROLES = ['viewer', 'admin'] as const;
export type Role = (typeof ROLES)[number];
export const SCOPES = ['events:read', 'webhooks:send', 'rules:read', 'rules:write', 'organization:manage'] as const;
export type Scope = (typeof SCOPES)[number];

export interface User {
  id: string;
  username: string;
  email: string;
  role: Role;
  created_at: string;
}

export interface Token {
  id: string;
  name: string;
  prefix: string;
  expires_at: string | null;
  last_used_at: string | null;
  created_at: string;
  scopes?: string[];
}

/** A token or key as created: the only answer carrying the secret (absent on an idempotent replay). */
export type CreatedToken = Token & { token?: string; secret_redacted?: true };

export interface AuditEntry {
  id: string;
  actor_user_id: string;
  actor_email: string;
  action: string;
  resource_type: string;
  resource_id: string;
  metadata: Record<string, unknown>;
  created_at: string;
}

export interface Page {
  total: number;
  page: number;
  per_page: number;
  pages: number;
}
