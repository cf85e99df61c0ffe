import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

/** The filters the prompt names for list_events, from its optional arguments. */
function filtersOf(source: string | undefined, since: string | undefined): string {
  const filters = ['status: "failed"', 'needs_attention: true'];
  if (source) filters.push(`source: ${JSON.stringify(source)}`);
  if (since) filters.push(`from: ${JSON.stringify(since)}`);
  return filters.join(', ');
}

/**
 * "Triage failed deliveries": walks an assistant through list → attempts → a proposed retry. It only proposes:
 * retrying sends webhooks again, so the user confirms before anything is done.
 */
export function registerTriagePrompt(server: McpServer): void {
  server.registerPrompt(
    'triage_failed_deliveries',
    {
      title: 'Triage failed deliveries',
      description:
        'Find the webhooks that failed to deliver, explain why (grouped by cause) and propose retries for the ' +
        'user to confirm.',
      argsSchema: {
        source: z.string().optional().describe('Only this source, e.g. "stripe" (see list_sources).'),
        since: z.string().optional().describe('Only events created at or after this time, ISO 8601.'),
      },
    },
    ({ source, since }) => {
      const scope = [source && `from the source "${source}"`, since && `since ${since}`].filter(Boolean).join(' ');
      const steps = [
        `Triage the webhook relay's failed deliveries${scope ? ` ${scope}` : ''}.`,
        `1. Call list_events with ${filtersOf(source, since)} to find the failed events that nobody has ` +
          'acknowledged yet. If there are none, say so and stop.',
        '2. For a few of them (up to 5, from different sources and targets), call list_event_attempts to see ' +
          'what the target answered: the HTTP status, the error (timeout, connection refused, DNS, …) and the ' +
          'start of the response body.',
        '3. Explain the causes grouped: which sources and targets fail, how (e.g. "the target answers 500", ' +
          '"the target does not resolve"), since when, and how many events each cause affects. Give the events\' ' +
          'dashboard links.',
        '4. Propose what to do: fix the cause first, then retry_event for single events or bulk_retry_events ' +
          'with the same filters for many; acknowledge_event for failures that should not be retried. Do not ' +
          'retry, acknowledge or delete anything until the user confirms.',
      ];
      return {
        description: 'Triage failed deliveries',
        messages: [{ role: 'user', content: { type: 'text', text: steps.join('\n') } }],
      };
    },
  );
}
