import type { Principal } from '@relay/core';
import type { Repositories } from '@relay/db';
import { auditPageView } from './audit.views';

export interface AuditServiceDeps {
  repositories: Pick<Repositories, 'audit'>;
}

// The organization's audit log, newest first: read-only here, every other service writes to it.
export function createAuditService(deps: AuditServiceDeps) {
  return {
    async page(principal: Principal, query: { page: number; per_page: number }) {
      const result = await deps.repositories.audit.page(principal.orgId, query.page, query.per_page);
      return auditPageView(result, query.page, query.per_page);
    },
  };
}
