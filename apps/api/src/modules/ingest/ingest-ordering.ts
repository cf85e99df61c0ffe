import { orderingKeyOf } from '@relay/core';
import type { IncomingWebhook } from './incoming-webhook';
import type { IngestRule } from './ingest-rules';

/**
 * The webhook with its ordering key when its rule orders delivery (rule option `ordering`); the
 * ingest statement then writes the key's event_ordering row with the event. Unchanged otherwise.
 */
export function withOrderingKey<W extends Pick<IncomingWebhook, 'headers' | 'body'>>(
  rule: Pick<IngestRule, 'ordering'> | null,
  webhook: W,
): W & { orderingKey?: string } {
  if (!rule?.ordering) return webhook;
  return { ...webhook, orderingKey: orderingKeyOf(rule.ordering, webhook.headers, webhook.body) };
}
