import type { OrgId, Role, Scope } from '@relay/core';
import type { DbClient } from '../client';

export interface ApiKeyCredential {
  kind: 'api_key';
  id: string;
  organizationId: OrgId;
  secretHash: string;
  scopes: Scope[];
  expiresAt: Date | null;
}

export interface PersonalTokenCredential {
  kind: 'personal_token';
  id: string;
  organizationId: OrgId;
  secretHash: string;
  expiresAt: Date | null;
  user: { id: string; username: string; email: string; role: Role; disabledAt: Date | null };
}

// Bearer tokens are looked up by their visible prefix; the caller compares the secret in constant
// time. A deleted key or token is simply not found, so revocation holds from the next request.
export function createCredentialRepository(prisma: DbClient) {
  return {
    async findByPrefix(prefix: string): Promise<ApiKeyCredential | PersonalTokenCredential | null> {
      const key = await prisma.apiKey.findUnique({ where: { prefix } });
      if (key) {
        return {
          kind: 'api_key',
          id: key.id,
          organizationId: key.organizationId as OrgId,
          secretHash: key.secretHash,
          scopes: key.scopes as Scope[],
          expiresAt: key.expiresAt,
        };
      }
      const token = await prisma.personalToken.findUnique({
        where: { prefix },
        include: { user: { select: { id: true, username: true, email: true, role: true, disabledAt: true } } },
      });
      if (!token) return null;
      return {
        kind: 'personal_token',
        id: token.id,
        organizationId: token.organizationId as OrgId,
        secretHash: token.secretHash,
        expiresAt: token.expiresAt,
        user: token.user,
      };
    },

    async touch(credential: { kind: 'api_key' | 'personal_token'; id: string }, at: Date): Promise<void> {
      if (credential.kind === 'api_key')
        await prisma.apiKey.updateMany({ where: { id: credential.id }, data: { lastUsedAt: at } });
      else await prisma.personalToken.updateMany({ where: { id: credential.id }, data: { lastUsedAt: at } });
    },

    async createApiKey(
      orgId: OrgId,
      data: {
        name: string;
        prefix: string;
        secretHash: string;
        scopes: Scope[];
        createdById: string | null;
        expiresAt: Date | null;
      },
    ) {
      return prisma.apiKey.create({
        data: { ...data, organizationId: orgId },
        select: { id: true, name: true, prefix: true, scopes: true, expiresAt: true, createdAt: true },
      });
    },

    listApiKeys(orgId: OrgId) {
      return prisma.apiKey.findMany({
        where: { organizationId: orgId },
        orderBy: { createdAt: 'desc' },
        select: {
          id: true,
          name: true,
          prefix: true,
          scopes: true,
          lastUsedAt: true,
          expiresAt: true,
          createdAt: true,
        },
      });
    },

    /** Returns whether a key of this organization was deleted. */
    async deleteApiKey(orgId: OrgId, id: string): Promise<{ name: string } | null> {
      const key = await prisma.apiKey.findFirst({ where: { id, organizationId: orgId }, select: { name: true } });
      if (!key) return null;
      await prisma.apiKey.deleteMany({ where: { id, organizationId: orgId } });
      return key;
    },

    listPersonalTokens(orgId: OrgId, userId: string) {
      return prisma.personalToken.findMany({
        where: { organizationId: orgId, userId },
        orderBy: { createdAt: 'desc' },
        select: { id: true, name: true, prefix: true, lastUsedAt: true, expiresAt: true, createdAt: true },
      });
    },

    /** Only the owner's own tokens: another user's token id is simply not found. */
    async deletePersonalToken(orgId: OrgId, userId: string, id: string): Promise<{ name: string } | null> {
      const token = await prisma.personalToken.findFirst({
        where: { id, organizationId: orgId, userId },
        select: { name: true },
      });
      if (!token) return null;
      await prisma.personalToken.deleteMany({ where: { id, organizationId: orgId, userId } });
      return token;
    },

    async createPersonalToken(
      orgId: OrgId,
      userId: string,
      data: { name: string; prefix: string; secretHash: string; expiresAt: Date | null },
    ) {
      return prisma.personalToken.create({
        data: { ...data, organizationId: orgId, userId },
        select: { id: true, name: true, prefix: true, expiresAt: true, createdAt: true },
      });
    },
  };
}

export type CredentialRepository = ReturnType<typeof createCredentialRepository>;
