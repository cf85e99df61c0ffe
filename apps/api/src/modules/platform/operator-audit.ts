import { AppError } from '@relay/core';
import { operatorEmail, type AuditInput, type OperatorRecord } from '@relay/db';
import type { AuditFact, AuditWriter } from '../audit-entry';

// Platform audit entries name the operator in actor_user_id and metadata; operators have no email,
// so actor_email is a `.invalid` address made from the username.
export const byOperator = (operator: OperatorRecord, fact: AuditFact): AuditInput => ({
  actorUserId: operator.id,
  actorEmail: operatorEmail(operator.username),
  ...fact,
  metadata: { operator: operator.username, ...fact.metadata },
});

/** Records the platform-level audit entry (no organization) of an operator's act. */
export function auditedByOperator(repos: AuditWriter, operator: OperatorRecord, fact: AuditFact): Promise<void> {
  return repos.audit.record(null, byOperator(operator, fact));
}

export const noSuchOrganization = () => new AppError('not_found', 'No such organization.');
