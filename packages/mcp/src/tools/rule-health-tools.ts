import { dataOf } from '@relay/client';
import { z } from 'zod';
import { defineTool } from '../tool-kit';
import { ruleIdInput, ruleSummary, ruleView } from './rule-views';

// Endpoint health: a rule whose target answered 410 or failed for its span is unhealthy and its events wait as
// `paused`; only an admin's resume releases them.

export const resumeRule = defineTool({
  name: 'resume_rule',
  title: 'Resume an unhealthy rule',
  description:
    'Marks a rule healthy again after its target was fixed (a rule turns unhealthy when its target answers 410 ' +
    'or fails every attempt for its span) and queues every paused event of the rule again, each with a fresh set ' +
    "of attempts. Confirm with the user first: the paused events are then sent to the rule's current target " +
    '(fix a moved target with update_rule first). Also releases ' +
    'paused events of a rule that is healthy already. Returns the rule and how many events were resumed.',
  operation: 'POST /rules/{id}/resume',
  input: { id: ruleIdInput },
  output: {
    rule: ruleSummary,
    resumed_events: z.number().describe('Paused events queued again.'),
  },
  // Repeating it changes nothing more once the rule is healthy and nothing is paused.
  annotations: { destructiveHint: false, idempotentHint: true },
  async run({ id }, { client, link }) {
    const resumed = await dataOf(client.POST('/rules/{id}/resume', { params: { path: { id } } }));
    return { rule: ruleView(resumed.rule, link), resumed_events: resumed.resumed_events };
  },
});
