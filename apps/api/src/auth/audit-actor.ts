import type { Principal } from '@relay/core';
import type { AuditInput, AuditRepository } from '@relay/db';

/** The actor fields of an audit entry; API keys have no user, so their id goes into metadata. */
export function actorOf(
  principal: Principal,
): Pick<AuditInput, 'actorUserId' | 'actorEmail'> & { via: Record<string, unknown> } {
  return {
    actorUserId: principal.userId,
    actorEmail: principal.email,
    via: principal.kind === 'api_key' ? { api_key_id: principal.credentialId } : { mechanism: principal.mechanism },
  };
}

/** Records an administrative change made by this principal in its organization. */
export async function recordAudit(
  audit: AuditRepository,
  principal: Principal,
  entry: { action: string; resourceType: string; resourceId: string | null; metadata?: Record<string, unknown> },
): Promise<void> {
  const { via, ...actor } = actorOf(principal);
  await audit.record(principal.orgId, { ...actor, ...entry, metadata: { ...entry.metadata, ...via } });
}
