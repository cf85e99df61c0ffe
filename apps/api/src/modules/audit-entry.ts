import type { Principal } from '@relay/core';
import type { AuditInput, AuditRepository } from '@relay/db';

/** What an audit entry says besides who did it. */
export interface AuditFact {
  action: string;
  resourceType: string;
  resourceId: string | null;
  metadata?: Record<string, unknown>;
}

/**
 * The audit entry of an act by this principal. API keys have no user, so their id goes into the
 * metadata; users' entries say through which mechanism they acted.
 */
export function auditEntry(principal: Principal, fact: AuditFact): AuditInput {
  const via =
    principal.kind === 'api_key' ? { api_key_id: principal.credentialId } : { mechanism: principal.mechanism };
  return {
    actorUserId: principal.userId,
    actorEmail: principal.email,
    ...fact,
    metadata: { ...fact.metadata, ...via },
  };
}

/** What `audited` writes through: the repositories, or a transaction's. */
export interface AuditWriter {
  audit: Pick<AuditRepository, 'record'>;
}

/** Records the audit entry of an act by this principal in its organization (in `repos`' transaction, if one). */
export function audited(repos: AuditWriter, principal: Principal, fact: AuditFact): Promise<void> {
  return repos.audit.record(principal.orgId, auditEntry(principal, fact));
}
