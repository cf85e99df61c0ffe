import type { OrgId } from '@relay/core';
import type { DbClient } from '../client';

export interface OrganizationRecord {
  id: OrgId;
  slug: string;
  name: string;
}

/** An organization's own limits (issue 17); null: the install-wide setting applies, or no quota. */
export interface OrganizationLimits {
  ingestRateLimit: number | null;
  apiRateLimit: number | null;
  monthlyEventLimit: number | null;
  currentPeriodEnd: Date | null;
}

export function createOrganizationRepository(prisma: DbClient) {
  return {
    /** What the rate limits and the quota need; the api caches it briefly (modules/limits). */
    async limits(orgId: OrgId): Promise<OrganizationLimits | null> {
      return prisma.organization.findUnique({
        where: { id: orgId },
        select: { ingestRateLimit: true, apiRateLimit: true, monthlyEventLimit: true, currentPeriodEnd: true },
      });
    },

    /** Events stored in (after, until]: seeds the quota counter of a period Redis does not know yet. */
    async eventsCreatedBetween(orgId: OrgId, after: Date, until: Date): Promise<number> {
      return prisma.event.count({ where: { organizationId: orgId, createdAt: { gt: after, lte: until } } });
    },

    async findById(orgId: OrgId): Promise<OrganizationRecord | null> {
      const row = await prisma.organization.findUnique({
        where: { id: orgId },
        select: { id: true, slug: true, name: true },
      });
      return row ? { ...row, id: row.id as OrgId } : null;
    },

    /** Whether this install holds one organization only (the sign-in page may name it to anyone). */
    async isOnlyOne(): Promise<boolean> {
      return (await prisma.organization.count({ take: 2 })) === 1;
    },

    async create(data: { slug: string; name: string }): Promise<OrganizationRecord> {
      const row = await prisma.organization.create({ data, select: { id: true, slug: true, name: true } });
      return { ...row, id: row.id as OrgId };
    },

    /** Ingest routing by `<slug>.<canonical host>`: the organization and whether it may ingest. */
    async findBySlugForIngest(slug: string): Promise<{ id: OrgId; subscriptionStatus: string } | null> {
      const row = await prisma.organization.findUnique({
        where: { slug },
        select: { id: true, subscriptionStatus: true },
      });
      return row ? { id: row.id as OrgId, subscriptionStatus: row.subscriptionStatus } : null;
    },

    async subscriptionStatus(orgId: OrgId): Promise<string | null> {
      return (
        (await prisma.organization.findUnique({ where: { id: orgId }, select: { subscriptionStatus: true } }))
          ?.subscriptionStatus ?? null
      );
    },

    async defaultTarget(orgId: OrgId): Promise<string | null> {
      return (
        (await prisma.organization.findUnique({ where: { id: orgId }, select: { defaultTargetUrl: true } }))
          ?.defaultTargetUrl ?? null
      );
    },

    /** Sets (or with null clears) the organization's own default target. */
    async setDefaultTarget(orgId: OrgId, url: string | null): Promise<void> {
      await prisma.organization.update({ where: { id: orgId }, data: { defaultTargetUrl: url } });
    },
  };
}

export type OrganizationRepository = ReturnType<typeof createOrganizationRepository>;
