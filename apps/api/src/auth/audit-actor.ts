import type { Principal } from '@relay/core';
import type { AuditInput } from '@relay/db';

/** The actor fields of an audit entry; API keys have no user, so their id goes into metadata. */
export function actorOf(principal: Principal): Pick<AuditInput, 'actorUserId' | 'actorEmail'> & { via: Record<string, unknown> } {
  return {
    actorUserId: principal.userId,
    actorEmail: principal.email,
    via: principal.kind === 'api_key' ? { api_key_id: principal.credentialId } : { mechanism: principal.mechanism },
  };
}
