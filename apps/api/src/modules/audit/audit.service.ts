import type { auditListQuery } from '@relay/contracts';
import type { Principal } from '@relay/core';
import type { Repositories } from '@relay/db';
import type { z } from 'zod';
import { auditFilter, auditPageView } from './audit.views';

export interface AuditServiceDeps {
  repositories: Pick<Repositories, 'audit'>;
}

type AuditListQuery = z.output<typeof auditListQuery>;

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
