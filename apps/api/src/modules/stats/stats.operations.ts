import { deliveryStatsSchema, statsQuery } from '@relay/contracts';
import { defineOperation } from '../../composition/define-operation';

export const statsOperations = [
  defineOperation({
    method: 'get',
    path: '/stats',
    tag: 'events',
    access: { role: 'viewer', scope: 'events:read' },
    summary: 'Delivery statistics over a time window',
    description:
      'Counts of events created in [from, to) by status and by source, success rate, delivery latency ' +
      'percentiles and a time series. The window is at most 90 days.',
    query: statsQuery,
    responses: { 200: { description: 'The statistics.', schema: deliveryStatsSchema } },
    handler: async ({ services, principal, query }) => ({
      status: 200,
      body: await services.stats.summary(principal, query),
    }),
  }),
];
