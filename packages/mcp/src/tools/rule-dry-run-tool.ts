import { dataOf } from '@relay/client';
import { ruleDryRunResultSchema, ruleDryRunSchema, routingFilterSchema } from '@relay/contracts';
import { defineTool } from '../tool-kit';
import { ruleIdInput } from './rule-views';

// POST /rules/{id}/dry-run: a filter tried on a rule's stored webhooks before it is saved with update_rule.
const { events, event_ids, destination_id } = ruleDryRunSchema.shape;

export const dryRunRuleFilter = defineTool({
  name: 'dry_run_rule_filter',
  title: "Try a routing filter on a rule's past webhooks",
  description:
    "Evaluates a routing filter on the rule's newest stored webhooks (default 50, at most 1000) or on given " +
    'event ids, and says how many it matches and which: those would have gone to the target, the others would ' +
    'have ended `ignored`. Read only: nothing is saved. Use it before setting `filter` with update_rule. With ' +
    "destination_id (list_destinations) and no filter it tries that destination's saved filter; with both, the " +
    'given filter as that destination would apply it (before update_destination). Give filter, destination_id or ' +
    'both. ' +
    'Sensitive headers are masked, as the events show them: a filter on their values matches nothing.',
  operation: 'POST /rules/{id}/dry-run',
  input: {
    id: ruleIdInput,
    filter: routingFilterSchema.optional(),
    destination_id,
    events: events,
    event_ids: event_ids,
  },
  output: ruleDryRunResultSchema.shape,
  annotations: { readOnlyHint: true, idempotentHint: true },
  async run({ id, ...body }, { client }) {
    return dataOf(client.POST('/rules/{id}/dry-run', { params: { path: { id } }, body }));
  },
});
