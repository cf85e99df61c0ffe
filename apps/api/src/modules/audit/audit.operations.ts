import { auditListQuery, auditPageSchema } from '@relay/contracts';
import { defineOperation } from '../../composition/define-operation';

export const auditOperations = [
  defineOperation({
    method: 'get',
    path: '/api/audit',
    tag: 'organization',
    access: { role: 'viewer', scope: 'events:read' },
    summary: 'Audit log, newest first, filtered by action, actor, resource and time',
    query: auditListQuery,
    responses: { 200: { description: 'A page of entries.', schema: auditPageSchema } },
    handler: async ({ services, principal, query }) => ({
      status: 200,
      body: await services.audit.page(principal, query),
    }),
  }),
];
