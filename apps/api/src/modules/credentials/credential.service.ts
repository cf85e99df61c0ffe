import { AppError, issueToken, type Principal, type Scope } from '@relay/core';
import type { Repositories } from '@relay/db';
import { audited } from '../audit-entry';
import { apiKeyView, tokenView } from './credential.views';

export interface CredentialServiceDeps {
  repositories: Pick<Repositories, 'credentials' | 'transaction'>;
}

interface NewCredential {
  name: string;
  /** ISO 8601; absent: never expires. */
  expires_at?: string | undefined;
}

function ownerOf(principal: Principal): string {
  if (principal.userId === null)
    throw new AppError('forbidden', 'Personal tokens belong to users; an API key has none.');
  return principal.userId;
}

const expiry = (input: NewCredential) => (input.expires_at ? new Date(input.expires_at) : null);

// Bearer credentials: each user's own personal tokens, and the organization's API keys (admins).
// The secret is shown once, at creation; creation and deletion are audited in the same transaction.
export function createCredentialService(deps: CredentialServiceDeps) {
  const repos = deps.repositories;
  return {
    async listTokens(principal: Principal) {
      return (await repos.credentials.listPersonalTokens(principal.orgId, ownerOf(principal))).map(tokenView);
    },

    async createToken(principal: Principal, input: NewCredential) {
      const userId = ownerOf(principal);
      const issued = issueToken();
      const token = await repos.transaction(async (tx) => {
        const created = await tx.credentials.createPersonalToken(principal.orgId, userId, {
          name: input.name,
          prefix: issued.prefix,
          secretHash: issued.secretHash,
          expiresAt: expiry(input),
        });
        const fact = { action: 'token.created', resourceType: 'token', resourceId: created.id };
        await audited(tx, principal, { ...fact, metadata: { name: created.name } });
        return created;
      });
      return { ...tokenView(token), token: issued.token };
    },

    /** Only the caller's own tokens: another user's token is not found. */
    async deleteToken(principal: Principal, id: string): Promise<void> {
      const userId = ownerOf(principal);
      await repos.transaction(async (tx) => {
        const deleted = await tx.credentials.deletePersonalToken(principal.orgId, userId, id);
        if (!deleted) throw new AppError('not_found', 'No such token.');
        const fact = { action: 'token.deleted', resourceType: 'token', resourceId: id };
        await audited(tx, principal, { ...fact, metadata: { name: deleted.name } });
      });
    },

    async listApiKeys(principal: Principal) {
      return (await repos.credentials.listApiKeys(principal.orgId)).map(apiKeyView);
    },

    async createApiKey(principal: Principal, input: NewCredential & { scopes: Scope[] }) {
      const issued = issueToken();
      const key = await repos.transaction(async (tx) => {
        const created = await tx.credentials.createApiKey(principal.orgId, {
          name: input.name,
          prefix: issued.prefix,
          secretHash: issued.secretHash,
          scopes: input.scopes,
          createdById: principal.userId,
          expiresAt: expiry(input),
        });
        const fact = { action: 'api_key.created', resourceType: 'api_key', resourceId: created.id };
        const metadata = { name: created.name, scopes: created.scopes };
        await audited(tx, principal, { ...fact, metadata });
        return created;
      });
      return { ...apiKeyView(key), token: issued.token };
    },

    async deleteApiKey(principal: Principal, id: string): Promise<void> {
      await repos.transaction(async (tx) => {
        const deleted = await tx.credentials.deleteApiKey(principal.orgId, id);
        if (!deleted) throw new AppError('not_found', 'No such API key.');
        const fact = { action: 'api_key.deleted', resourceType: 'api_key', resourceId: id };
        await audited(tx, principal, { ...fact, metadata: { name: deleted.name } });
      });
    },
  };
}
