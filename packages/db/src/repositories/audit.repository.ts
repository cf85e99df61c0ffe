import type { OrgId } from '@relay/core';
import type pg from 'pg';
import { v7 as uuidv7 } from 'uuid';
import type { DbClient } from '../client';

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

export interface AuditRecord extends Required<AuditInput> {
  id: string;
  createdAt: Date;
}

// Prisma's JSON input type does not take Record<string, unknown>; any plain object is JSON here.
const jsonObject = (metadata: Record<string, unknown> | undefined): object => metadata ?? {};

export function createAuditRepository(prisma: DbClient) {
  return {
    /** `orgId` null: a platform-level entry (e.g. a failed login for a username nobody has). */
    async record(orgId: OrgId | null, entry: AuditInput): Promise<void> {
      await prisma.auditEntry.create({
        data: { ...entry, metadata: jsonObject(entry.metadata), organizationId: orgId },
      });
    },

    /** Newest first. `null`: the platform-level entries (operators only). */
    async page(orgId: OrgId | null, page: number, perPage: number): Promise<{ entries: AuditRecord[]; total: number }> {
      const [total, rows] = await Promise.all([
        prisma.auditEntry.count({ where: { organizationId: orgId } }),
        prisma.auditEntry.findMany({
          where: { organizationId: orgId },
          orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
          skip: (page - 1) * perPage,
          take: perPage,
        }),
      ]);
      const entries = rows.map((r) => ({
        id: r.id,
        actorUserId: r.actorUserId,
        actorEmail: r.actorEmail,
        action: r.action,
        resourceType: r.resourceType,
        resourceId: r.resourceId,
        metadata: r.metadata as Record<string, unknown>,
        createdAt: r.createdAt,
      }));
      return { entries, total };
    },
  };
}

export type AuditRepository = ReturnType<typeof createAuditRepository>;

/**
 * The audit entry of a write made in raw SQL (event actions), inside that write's transaction.
 * The columns are those Prisma writes in `record` above.
 */
export async function insertAuditEntry(client: pg.ClientBase, orgId: OrgId, entry: AuditInput): Promise<void> {
  await client.query(
    `INSERT INTO audit_entries (id, organization_id, actor_user_id, actor_email, action, resource_type, resource_id,
       metadata, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now() AT TIME ZONE 'UTC')`,
    [
      uuidv7(),
      orgId,
      entry.actorUserId,
      entry.actorEmail,
      entry.action,
      entry.resourceType,
      entry.resourceId,
      JSON.stringify(entry.metadata ?? {}),
    ],
  );
}
