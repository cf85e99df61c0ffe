import type { auditListQuery } from '@relay/contracts';
import type { Principal } from '@relay/core';
import type { AuditFilter, Repositories } from '@relay/db';
import type { z } from 'zod';
import { auditPageView } from './audit.views';

export interface AuditServiceDeps {
  repositories: Pick<Repositories, 'audit'>;
}

type AuditListQuery = z.output<typeof auditListQuery>;

/** The query's filters as the repository takes them: `action` is one action or several separated by commas. */
function auditFilter(q: AuditListQuery): AuditFilter {
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

// The organization's audit log, newest first: read-only here, every other service writes to it.
export function createAuditService(deps: AuditServiceDeps) {
  return {
    async page(principal: Principal, query: AuditListQuery) {
      const filter = auditFilter(query);
      const result = await deps.repositories.audit.page(principal.orgId, query.page, query.per_page, filter);
      return auditPageView(result, query.page, query.per_page);
    },
  };
}
