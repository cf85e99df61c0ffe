import { ruleDryRunResultSchema, ruleDryRunSchema, uuidParam } from '@relay/contracts';
import { defineOperation } from '../../composition/define-operation';

// A filter tried on a rule's stored webhooks (docs/routing.md, "Dry run"). Admin, and `events:read` for keys:
// which webhooks match reveals what their payloads contain.
export const ruleDryRunOperations = [
  defineOperation({
    tag: 'rules',
    notFound: 'No such rule.',
    method: 'post',
    path: '/rules/:id/dry-run',
    access: { role: 'admin', scope: 'events:read' },
    summary: "Try a routing filter on the rule's stored webhooks, changing nothing",
    description:
      "Evaluates `filter` (or, with `destination_id` alone, that destination's saved filter; null matches all) on " +
      "the rule's newest `events` stored webhooks (default 50, at most 1,000) or on the " +
      "given `event_ids` (each must be one of the rule's events, else 404), and says which would have matched. " +
      'Read only: nothing is saved, delivered or audited. The filter sees each webhook as the events API shows it: ' +
      'sensitive headers masked (so their values cannot be probed), the path, the query and the body as ' +
      'received (parsed as JSON, else text).',
    params: uuidParam,
    body: ruleDryRunSchema,
    responses: {
      200: { description: 'What the filter matches.', schema: ruleDryRunResultSchema },
      404: { description: 'No such rule, event of the rule, or destination of the rule (`not_found`).' },
    },
    handler: async ({ services, principal, params, body }) => ({
      status: 200,
      body: await services.ruleDryRun.dryRun(principal, params.id, body),
    }),
  }),
];
