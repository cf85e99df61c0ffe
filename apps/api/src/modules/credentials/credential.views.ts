import { isoOrNull } from '../../http/timestamps';

interface CredentialRow {
  id: string;
  name: string;
  prefix: string;
  expiresAt: Date | null;
  createdAt: Date;
  lastUsedAt?: Date | null;
}

/** A personal token without its secret; the prefix is shown as typed (`ts_<prefix>`). */
export const tokenView = (t: CredentialRow) => ({
  id: t.id,
  name: t.name,
  prefix: `ts_${t.prefix}`,
  expires_at: isoOrNull(t.expiresAt),
  last_used_at: isoOrNull(t.lastUsedAt),
  created_at: t.createdAt.toISOString(),
});

/** An API key without its secret: a token's fields with its scopes, in the spec's order. */
export const apiKeyView = (k: CredentialRow & { scopes: string[] }) => {
  const { expires_at, last_used_at, created_at, ...head } = tokenView(k);
  return { ...head, scopes: k.scopes, expires_at, last_used_at, created_at };
};
