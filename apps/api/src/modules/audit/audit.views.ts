import type { auditListQuery } from '@relay/contracts';
import type { AuditFilter, AuditRecord } from '@relay/db';
import type { z } from 'zod';

/** ISO 8601 in UTC without a zone offset, as the spec shows: `2026-11-22T20:11:51.123`. */
export const auditTimestamp = (date: Date) => date.toISOString().replace(/Z$/, '');

export function auditEntryView(e: AuditRecord) {
  return {
    id: e.id,
    actor_user_id: e.actorUserId,
    actor_email: e.actorEmail,
    action: e.action,
    resource_type: e.resourceType,
    resource_id: e.resourceId,
    metadata: e.metadata,
    created_at: auditTimestamp(e.createdAt),
  };
}

/** The spec's envelope around one page of entries; the organization log and the platform log share it. */
export function auditPageView(result: { entries: AuditRecord[]; total: number }, page: number, perPage: number) {
  return {
    entries: result.entries.map(auditEntryView),
    total: result.total,
    page,
    per_page: perPage,
    pages: Math.ceil(result.total / perPage),
  };
}

/**
 * The filters of an audit query (`GET /api/audit`, `GET /api/platform/audit`) as the repository takes them:
 * `action` is one action or several separated by commas.
 */
export function auditFilter(q: z.output<typeof auditListQuery>): AuditFilter {
  return {
    actions: q.action?.split(','),
    actorUserId: q.actor_user_id,
    actorEmail: q.actor_email,
    resourceType: q.resource_type,
    resourceId: q.resource_id,
    from: q.from === undefined ? undefined : new Date(q.from),
    to: q.to === undefined ? undefined : new Date(q.to),
  };
}
