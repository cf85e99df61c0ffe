import type { OrgId } from '@relay/core';
import type { DbClient } from '../client';
import { DbNull } from '../generated/prisma/internal/prismaNamespace';

/** An organization's own identity provider (organization_identity_providers); the secret stays sealed here. */
export interface IdentityProviderRecord {
  organizationId: OrgId;
  issuerUrl: string;
  clientId: string;
  /** Sealed with SECRET_ENCRYPTION_KEYS (enc:v1:…); null: a public client. */
  clientSecretSealed: string | null;
  scopes: string;
  buttonLabel: string | null;
  provisioning: 'off' | 'verified_email' | 'domains';
  allowedDomains: string[];
  roleMapping: { claim: string; admin: string[] } | null;
  createdAt: Date;
  updatedAt: Date;
}

export type IdentityProviderWrite = Omit<IdentityProviderRecord, 'organizationId' | 'createdAt' | 'updatedAt'>;

const PROVISIONING = ['off', 'verified_email', 'domains'] as const;

// The JSON column is read back defensively: anything but { claim, admin: [strings] } is no mapping.
function mappingOf(value: unknown): IdentityProviderRecord['roleMapping'] {
  const m = value as { claim?: unknown; admin?: unknown } | null;
  if (!m || typeof m.claim !== 'string' || !Array.isArray(m.admin)) return null;
  return { claim: m.claim, admin: m.admin.filter((v): v is string => typeof v === 'string') };
}

type Row = Omit<IdentityProviderRecord, 'organizationId' | 'provisioning' | 'roleMapping' | 'allowedDomains'> & {
  organizationId: string;
  provisioning: string;
  allowedDomains: string[] | null;
  roleMapping: unknown;
};

const toRecord = (row: Row): IdentityProviderRecord => ({
  ...row,
  organizationId: row.organizationId as OrgId,
  provisioning: PROVISIONING.find((p) => p === row.provisioning) ?? 'off',
  allowedDomains: row.allowedDomains ?? [],
  roleMapping: mappingOf(row.roleMapping),
});

// At most one provider per organization (the organization id is the key).
export function createIdentityProviderRepository(prisma: DbClient) {
  return {
    async find(orgId: OrgId): Promise<IdentityProviderRecord | null> {
      const row = await prisma.organizationIdentityProvider.findUnique({ where: { organizationId: orgId } });
      return row ? toRecord(row) : null;
    },

    async save(orgId: OrgId, data: IdentityProviderWrite): Promise<IdentityProviderRecord> {
      // Prisma writes SQL NULL into a JSON column only through its DbNull marker; a plain null is refused.
      const { roleMapping, ...rest } = data;
      const fields = { ...rest, roleMapping: roleMapping ?? DbNull };
      const row = await prisma.organizationIdentityProvider.upsert({
        where: { organizationId: orgId },
        create: { organizationId: orgId, ...fields },
        update: fields,
      });
      return toRecord(row);
    },

    async delete(orgId: OrgId): Promise<boolean> {
      const { count } = await prisma.organizationIdentityProvider.deleteMany({ where: { organizationId: orgId } });
      return count > 0;
    },
  };
}

export type IdentityProviderRepository = ReturnType<typeof createIdentityProviderRepository>;
