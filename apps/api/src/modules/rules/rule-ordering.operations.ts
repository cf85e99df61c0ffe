import { ruleOrderingSchema, uuidParam } from '@relay/contracts';
import { defineOperation } from '../../composition/define-operation';

// Ordered delivery (docs/rules.md): the keys a failing event holds up.
export const ruleOrderingOperations = [
  defineOperation({
    tag: 'rules',
    notFound: 'No such rule.',
    method: 'get',
    path: '/rules/:id/ordering',
    access: { role: 'viewer', scope: 'rules:read' },
    summary: 'Blocked ordering keys of a rule',
    description:
      'For a rule with `ordering`: the keys whose oldest unfinished event has failed at least once, so ' +
      'the events behind it wait. Oldest block first, at most 100.',
    params: uuidParam,
    responses: { 200: { description: 'The blocked keys.', schema: ruleOrderingSchema } },
    handler: async ({ services, principal, params }) => ({
      status: 200,
      body: await services.ruleOrdering.blockedKeys(principal, params.id),
    }),
  }),
];
