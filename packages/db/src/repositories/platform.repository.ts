import type { OrgId } from '@relay/core';
import { atomically, type DbClient } from '../client';
import type { SubscriptionStatus } from '../generated/prisma/client';

export type { SubscriptionStatus };

export interface HostedOrganization {
  id: OrgId;
  name: string;
  slug: string;
  subscriberName: string | null;
  billingContactName: string | null;
  billingContactEmail: string | null;
  plan: string;
  subscriptionStatus: SubscriptionStatus;
  monthlyEventLimit: number | null;
  currentPeriodEnd: Date | null;
  /** The organization's own limits; null: the install-wide setting. */
  ingestRateLimit: number | null;
  apiRateLimit: number | null;
  retentionDays: number | null;
  createdAt: Date;
}

export interface NewHostedOrganization {
  name: string;
  slug: string;
  subscriberName: string;
  billingContactName: string;
  billingContactEmail: string;
  admin: { username: string; email: string; passwordHash: string };
}

export interface SubscriptionPatch {
  plan?: string;
  subscriptionStatus?: SubscriptionStatus;
  monthlyEventLimit?: number | null;
  currentPeriodEnd?: Date | null;
  ingestRateLimit?: number | null;
  apiRateLimit?: number | null;
  retentionDays?: number | null;
}

const fields = {
  id: true,
  name: true,
  slug: true,
  subscriberName: true,
  billingContactName: true,
  billingContactEmail: true,
  plan: true,
  subscriptionStatus: true,
  monthlyEventLimit: true,
  currentPeriodEnd: true,
  ingestRateLimit: true,
  apiRateLimit: true,
  retentionDays: true,
  createdAt: true,
} as const;
const asHosted = <T extends { id: string }>(row: T) => ({ ...row, id: row.id as OrgId });

type StatusCounts = { queued: number; delivered: number; failed: number };

// Events per status without reading every event: the not delivered are counted per status in event_open (small),
// and delivered is the rest of a plain count of events (all of them, or one organization's, which an index led by
// organization_id answers). events has no index led by status any more (20261207100000_hot_outcomes), so counting
// it grouped by status would read every row of it (or of the organization). One statement, so both
// counts see the same events. The answer is the one the group by over events gave: every status that has events
// under its own name (paused and ignored too), and queued, delivered and failed always (0 when none).
const EVENTS_BY_STATUS = (where: string) => `
SELECT status::text AS status, count(*) AS n FROM event_open ${where} GROUP BY status
UNION ALL SELECT NULL, count(*) FROM events ${where}`;
const ALL_EVENTS_BY_STATUS = EVENTS_BY_STATUS('');
const ORG_EVENTS_BY_STATUS = EVENTS_BY_STATUS('WHERE organization_id = $1::uuid');

/** The platform counts' statements, for the tests of their plans. */
export const PLATFORM_STATEMENTS = { ALL_EVENTS_BY_STATUS, ORG_EVENTS_BY_STATUS } as const;

type StatusRow = { status: string | null; n: bigint };
const countsOf = (rows: StatusRow[]): StatusCounts => {
  const out: StatusCounts = { queued: 0, delivered: 0, failed: 0 };
  let open = 0;
  let total = 0;
  for (const row of rows) {
    if (row.status === null) total = Number(row.n);
    else {
      open += Number(row.n);
      out[row.status as keyof StatusCounts] = Number(row.n);
    }
  }
  if (total > open) out.delivered = total - open;
  return out;
};

// The platform operator's view across organizations. It is the one repository that reads every
// tenant on purpose; only the operator-only platform routes use it.
export function createPlatformRepository(prisma: DbClient) {
  return {
    async overview() {
      const [organizations, byStatus, users, events, deliveries] = await Promise.all([
        prisma.organization.count(),
        prisma.organization.groupBy({ by: ['subscriptionStatus'], _count: { _all: true } }),
        prisma.user.count(),
        prisma.$queryRawUnsafe<StatusRow[]>(ALL_EVENTS_BY_STATUS),
        prisma.deliveryAttempt.groupBy({ by: ['kind'], _count: { _all: true } }),
      ]);
      return {
        organizations,
        organizationsBySubscription: Object.fromEntries(byStatus.map((r) => [r.subscriptionStatus, r._count._all])),
        users,
        events: countsOf(events),
        attempts: Object.fromEntries(deliveries.map((r) => [r.kind, r._count._all])) as Record<string, number>,
      };
    },

    async list(
      search: string | undefined,
      page: number,
      perPage: number,
    ): Promise<{ organizations: HostedOrganization[]; total: number }> {
      const where = search
        ? {
            OR: [
              { name: { contains: search, mode: 'insensitive' as const } },
              { slug: { contains: search, mode: 'insensitive' as const } },
            ],
          }
        : {};
      const [rows, total] = await Promise.all([
        prisma.organization.findMany({
          where,
          select: fields,
          orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
          skip: (page - 1) * perPage,
          take: perPage,
        }),
        prisma.organization.count({ where }),
      ]);
      return { organizations: rows.map(asHosted), total };
    },

    async get(id: string) {
      const row = await prisma.organization.findUnique({ where: { id }, select: fields });
      if (!row) return null;
      const [users, events, domains] = await Promise.all([
        prisma.user.groupBy({ by: ['role'], where: { organizationId: id }, _count: { _all: true } }),
        prisma.$queryRawUnsafe<StatusRow[]>(ORG_EVENTS_BY_STATUS, id),
        prisma.customDomain.findMany({
          where: { organizationId: id },
          select: { domain: true, status: true },
          orderBy: { domain: 'asc' },
        }),
      ]);
      return {
        ...asHosted(row),
        usersByRole: Object.fromEntries(users.map((r) => [r.role, r._count._all])) as Record<string, number>,
        events: countsOf(events),
        domains,
      };
    },

    /** The organization and its first admin in one transaction; a taken slug or username creates nothing. */
    async create(
      data: NewHostedOrganization,
    ): Promise<{ organization: HostedOrganization; adminId: string } | 'slug_taken' | 'username_taken'> {
      return atomically(prisma, async (tx) => {
        // Creations of one slug or username queue here, so the checks below cannot race.
        await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`org:${data.slug}`}))`;
        await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`user:${data.admin.username}`}))`;
        if (await tx.organization.findUnique({ where: { slug: data.slug }, select: { id: true } })) return 'slug_taken';
        const taken =
          (await tx.user.count({ where: { username: data.admin.username } })) +
          (await tx.platformOperator.count({ where: { username: data.admin.username } }));
        if (taken > 0) return 'username_taken';
        const { admin, ...org } = data;
        const row = await tx.organization.create({ data: org, select: fields });
        const user = await tx.user.create({
          data: { ...admin, role: 'admin', organizationId: row.id },
          select: { id: true },
        });
        return { organization: asHosted(row), adminId: user.id };
      });
    },

    async updateSubscription(id: string, patch: SubscriptionPatch): Promise<HostedOrganization | null> {
      const found = await prisma.organization.findUnique({ where: { id }, select: { id: true } });
      if (!found) return null;
      return asHosted(await prisma.organization.update({ where: { id }, data: patch, select: fields }));
    },
  };
}

export type PlatformRepository = ReturnType<typeof createPlatformRepository>;
