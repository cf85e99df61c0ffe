import { dataOf } from '@relay/client';
import { z } from 'zod';
import { defineTool } from '../tool-kit';
import { ruleIdInput } from './rule-views';

// Ordered delivery: a rule with `ordering` delivers one event at a time per key; a failing event holds up its
// key (only), and this shows which keys are held up and for how long.

const blockedKey = z.object({
  key: z.string().describe("The ordering key ('' is the whole source, or webhooks without a key)."),
  event_id: z.string().describe("The key's failing head event (get_event shows its attempts)."),
  status: z.string().describe('queued (being retried) or paused (the rule is unhealthy).'),
  attempts: z.number(),
  blocked_since: z.string().describe("When the head's first failed attempt finished."),
  waiting: z.number().describe('Events of the key waiting behind the head.'),
});

export const ruleBlockedKeys = defineTool({
  name: 'rule_blocked_keys',
  title: "An ordered rule's blocked keys",
  description:
    'For a rule with ordered delivery: the ordering keys whose oldest unfinished event has failed at least once, ' +
    'so later events of the key wait (other keys keep flowing). Each shows the head event, its attempts, since ' +
    'when the key is blocked and how many events wait. Oldest block first, at most 100. A key unblocks when its ' +
    'head is delivered or fails finally. Empty for a rule without ordering.',
  operation: 'GET /rules/{id}/ordering',
  input: { id: ruleIdInput },
  output: { blocked_keys: z.array(blockedKey) },
  annotations: { readOnlyHint: true, idempotentHint: true },
  async run({ id }, { client }) {
    return dataOf(client.GET('/rules/{id}/ordering', { params: { path: { id } } }));
  },
});
