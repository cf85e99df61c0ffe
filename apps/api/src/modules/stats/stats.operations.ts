import { deliveryStatsSchema, ruleStatsQuery, ruleStatsSchema, statsQuery } from '@relay/contracts';
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
  defineOperation({
    method: 'get',
    path: '/stats/rules',
    tag: 'events',
    access: { role: 'viewer', scope: 'events:read' },
    summary: 'Events per rule over a time window, with a series each',
    description:
      'Per rule, counts of the events it routed that were created in [from, to) by status, and one series per ' +
      'rule (hourly over the default 24 hours): the rules list draws a traffic chart per rule from one call.',
    query: ruleStatsQuery,
    responses: { 200: { description: 'The statistics per rule.', schema: ruleStatsSchema } },
    handler: async ({ services, principal, query }) => ({
      status: 200,
      body: await services.stats.byRule(principal, query),
    }),
  }),
];
