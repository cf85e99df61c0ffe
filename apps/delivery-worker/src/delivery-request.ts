import { forwardableHeaders, relaySignature, standardWebhookHeaders } from '@relay/core';
import type { StoredEvent } from '@relay/db';

export const USER_AGENT = 'webhook-relay/0.1 (+https://github.com/webhook-relay)';

/**
 * Headers of a main delivery: the provider's own headers (so receivers can check the provider's
 * signature), then the relay's. `webhook-id` is the event id, stable across retries, so receivers
 * can deduplicate.
 */
export function deliveryHeaders(event: StoredEvent, secret: string | null, nowSeconds: number): Record<string, string> {
  const headers: Record<string, string> = {
    ...forwardableHeaders(event.headers),
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'x-relay-event-id': event.id,
    'x-relay-source': event.source,
  };
  if (secret !== null) {
    headers['x-relay-signature'] = relaySignature(secret, event.body);
    Object.assign(headers, standardWebhookHeaders(secret, event.id, nowSeconds, event.body));
  } else {
    headers['webhook-id'] = event.id;
    headers['webhook-timestamp'] = String(nowSeconds);
  }
  return headers;
}
