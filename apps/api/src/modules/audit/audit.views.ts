import type { AuditRecord } from '@relay/db';

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
