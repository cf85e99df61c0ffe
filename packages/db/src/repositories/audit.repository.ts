import type { OrgId } from '@relay/core';
import type pg from 'pg';
import { v7 as uuidv7 } from 'uuid';
import type { DbClient } from '../client';

export interface AuditInput {
  /** null: an API key's act (its id in `metadata.api_key_id`) or the system's; see `attributed`. */
  actorUserId: string | null;
  actorEmail: string | null;
  /** `<resource>.<verb>`, e.g. `api_key.created`. */
  action: string;
  resourceType: string;
  /** null: the entry is about no stored resource (a failed login for an unknown name); it names itself. */
  resourceId: string | null;
  /** Never secrets: callers pass names, ids and changed fields only. */
  metadata?: Record<string, unknown>;
}

/** A stored entry: every field has the spec's type (the columns are NOT NULL). */
export interface AuditRecord {
  id: string;
  actorUserId: string;
  actorEmail: string;
  action: string;
  resourceType: string;
  resourceId: string;
  metadata: Record<string, unknown>;
  createdAt: Date;
}

/**
 * Who acts when no user does: start-up work, the CLI, the operator bootstrap, failed logins for
 * names nobody has, and API keys whose creator is gone. A fixed id no user can have, and an
 * address under `.invalid` (RFC 2606) that can never be delivered to.
 */
export const SYSTEM_ACTOR = { id: '00000000-0000-7000-8000-000000000000', email: 'system@relay.invalid' } as const;

/** Platform operators have no email: their entries carry this one, which can never be delivered to. */
export const operatorEmail = (username: string) => `${username}@operator.invalid`;

/** The key's creator for an API key's act (looked up in the same transaction), else the system actor. */
type CreatorOf = (apiKeyId: string) => Promise<{ id: string; email: string } | null>;

async function attributed(
  entry: AuditInput,
  creatorOf: CreatorOf,
): Promise<{ id: string; actorUserId: string; actorEmail: string; resourceId: string }> {
  const id = uuidv7();
  const resourceId = entry.resourceId ?? id;
  if (entry.actorUserId !== null) {
    return { id, resourceId, actorUserId: entry.actorUserId, actorEmail: entry.actorEmail ?? SYSTEM_ACTOR.email };
  }
  const keyId = entry.metadata?.api_key_id;
  const creator = typeof keyId === 'string' ? await creatorOf(keyId) : null;
  const actor = creator ?? SYSTEM_ACTOR;
  return { id, resourceId, actorUserId: actor.id, actorEmail: actor.email };
}

// Prisma's JSON input type does not take Record<string, unknown>; any plain object is JSON here.
const jsonObject = (metadata: Record<string, unknown> | undefined): object => metadata ?? {};

/** Narrows a page of entries; every field given must hold. `from` inclusive, `to` exclusive. */
export interface AuditFilter {
  /** Any of these actions, exactly. */
  actions?: string[];
  actorUserId?: string;
  actorEmail?: string;
  resourceType?: string;
  resourceId?: string;
  from?: Date;
  to?: Date;
}

function auditWhere(orgId: OrgId | null, f: AuditFilter) {
  return {
    organizationId: orgId,
    ...(f.actions && { action: { in: f.actions } }),
    ...(f.actorUserId && { actorUserId: f.actorUserId }),
    ...(f.actorEmail && { actorEmail: f.actorEmail }),
    ...(f.resourceType && { resourceType: f.resourceType }),
    ...(f.resourceId && { resourceId: f.resourceId }),
    ...((f.from ?? f.to) && { createdAt: { ...(f.from && { gte: f.from }), ...(f.to && { lt: f.to }) } }),
  };
}

export function createAuditRepository(prisma: DbClient) {
  return {
    /** `orgId` null: a platform-level entry (e.g. a failed login for a username nobody has). */
    async record(orgId: OrgId | null, entry: AuditInput): Promise<void> {
      const who = await attributed(entry, async (keyId) => {
        const key = await prisma.apiKey.findUnique({ where: { id: keyId }, select: { createdById: true } });
        if (!key?.createdById) return null;
        return prisma.user.findUnique({ where: { id: key.createdById }, select: { id: true, email: true } });
      });
      await prisma.auditEntry.create({
        data: { ...entry, ...who, metadata: jsonObject(entry.metadata), organizationId: orgId },
      });
    },

    /** Newest first. `null`: the platform-level entries (operators only). */
    async page(
      orgId: OrgId | null,
      page: number,
      perPage: number,
      filter: AuditFilter = {},
    ): Promise<{ entries: AuditRecord[]; total: number }> {
      const where = auditWhere(orgId, filter);
      const [total, rows] = await Promise.all([
        prisma.auditEntry.count({ where }),
        prisma.auditEntry.findMany({
          where,
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
 * The columns are those Prisma writes in `record` above; `orgId` null: a platform-level entry.
 */
export async function insertAuditEntry(client: pg.ClientBase, orgId: OrgId | null, entry: AuditInput): Promise<void> {
  const who = await attributed(entry, async (keyId) => {
    const { rows } = await client.query<{ id: string; email: string }>(
      `SELECT u.id, u.email FROM api_keys k JOIN users u ON u.id = k.created_by_id WHERE k.id::text = $1`,
      [keyId],
    );
    return rows[0] ?? null;
  });
  await client.query(
    `INSERT INTO audit_entries (id, organization_id, actor_user_id, actor_email, action, resource_type, resource_id,
       metadata, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now() AT TIME ZONE 'UTC')`,
    [
      who.id,
      orgId,
      who.actorUserId,
      who.actorEmail,
      entry.action,
      entry.resourceType,
      who.resourceId,
      JSON.stringify(entry.metadata ?? {}),
    ],
  );
}
