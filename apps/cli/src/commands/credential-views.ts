import type { AnswerOf } from '@relay/client';
import { formatTable } from '../output/table';
import { ago } from './command-kit';

type Token = AnswerOf<'/api/auth/tokens', 'get'>['tokens'][number];
type ApiKey = AnswerOf<'/api/api-keys', 'get'>['api_keys'][number];

const expires = (iso: string | null) => iso ?? 'never';

export function tokensTable(tokens: readonly Token[]): string {
  if (tokens.length === 0) return 'No personal tokens.';
  return formatTable(tokens, [
    { header: 'id', value: (t) => t.id },
    { header: 'name', value: (t) => t.name, maxWidth: 40 },
    { header: 'prefix', value: (t) => `${t.prefix}…` },
    { header: 'last used', value: (t) => ago(t.last_used_at) },
    { header: 'expires', value: (t) => expires(t.expires_at) },
    { header: 'created', value: (t) => ago(t.created_at) },
  ]);
}

export function apiKeysTable(keys: readonly ApiKey[]): string {
  if (keys.length === 0) return 'No API keys.';
  return formatTable(keys, [
    { header: 'id', value: (k) => k.id },
    { header: 'name', value: (k) => k.name, maxWidth: 40 },
    { header: 'prefix', value: (k) => `${k.prefix}…` },
    { header: 'scopes', value: (k) => k.scopes.join(',') },
    { header: 'last used', value: (k) => ago(k.last_used_at) },
    { header: 'expires', value: (k) => expires(k.expires_at) },
  ]);
}

/**
 * The secret of a new token or key, printed alone on stdout so `$(relay keys create … -q)` captures just it. An
 * idempotent replay carries no secret: then there is nothing to print, and saying so beats an empty line.
 */
export function shownOnce(created: { token?: string; secret_redacted?: true }): string {
  if (created.token) return created.token;
  return '(the secret is not in this answer: it was shown when the request was first made)';
}
