import type { OrgId } from '@relay/core';
import type { Prisma } from '../database';

export interface AuditInput {
  actorUserId: string | null;
  actorEmail: string | null;
  /** `<resource>.<verb>`, e.g. `api_key.created`. */
  action: string;
  resourceType: string;
  resourceId: string | null;
  /** Never secrets: callers pass names, ids and changed fields only. */
  metadata?: Record<string, unknown>;
}

export interface AuditEntryView {
  id: string;
  actor_user_id: string | null;
  actor_email: string | null;
  action: string;
  resource_type: string;
  resource_id: string | null;
  metadata: Record<string, unknown>;
  created_at: string;
}

export interface AuditPage {
  entries: AuditEntryView[];
  total: number;
  page: number;
  per_page: number;
  pages: number;
}

/** ISO 8601 in UTC without a zone offset, as the spec shows: `2026-11-22T20:11:51.123`. */
export const auditTimestamp = (date: Date) => date.toISOString().replace(/Z$/, '');

export function createAuditRepository(prisma: Prisma) {
  return {
    /** `orgId` null: a platform-level entry (e.g. a failed login for a username nobody has). */
    async record(orgId: OrgId | null, entry: AuditInput): Promise<void> {
      await prisma.auditEntry.create({
        data: { ...entry, metadata: (entry.metadata ?? {}) as object, organizationId: orgId },
      });
    },

    /** Newest first, the spec's envelope. `null`: the platform-level entries (operators only). */
    async page(orgId: OrgId | null, page: number, perPage: number): Promise<AuditPage> {
      const [total, rows] = await Promise.all([
        prisma.auditEntry.count({ where: { organizationId: orgId } }),
        prisma.auditEntry.findMany({
          where: { organizationId: orgId },
          orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
          skip: (page - 1) * perPage,
          take: perPage,
        }),
      ]);
      return {
        entries: rows.map((r) => ({
          id: r.id,
          actor_user_id: r.actorUserId,
          actor_email: r.actorEmail,
          action: r.action,
          resource_type: r.resourceType,
          resource_id: r.resourceId,
          metadata: r.metadata as Record<string, unknown>,
          created_at: auditTimestamp(r.createdAt),
        })),
        total,
        page,
        per_page: perPage,
        pages: Math.ceil(total / perPage),
      };
    },
  };
}

export type AuditRepository = ReturnType<typeof createAuditRepository>;
