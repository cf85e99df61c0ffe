import {
  fixedHeaders,
  forwardableHeaders,
  relaySignature,
  standardWebhookHeaders,
  type OutboundHeaders,
} from '@relay/core';
import type { StoredEvent } from '@relay/db';

export const USER_AGENT = 'webhook-relay/0.1 (+https://github.com/webhook-relay)';

/**
 * Headers of a main delivery: the sender's own headers (so receivers can check the sender's
 * signature), then the relay's. `webhook-id` is the event id, stable across retries, so receivers
 * can deduplicate. `secrets` is newest first: during a rotation window every one signs
 * webhook-signature (receivers accept any), X-Relay-Signature only the newest; none: unsigned.
 * The rule's fixed headers (`outbound_headers.set`) replace inbound ones of the same name and go to
 * the rule's target only (`fixed`): hooks are other endpoints, and a fixed header is often the
 * target's own credential. The relay's headers come last, so nothing replaces them.
 */
export function deliveryHeaders(
  event: StoredEvent,
  secrets: readonly string[],
  nowSeconds: number,
  outbound: OutboundHeaders = {},
  options: { fixed?: boolean | undefined; webhookId?: string | undefined } = {},
): Record<string, string> {
  const webhookId = options.webhookId ?? event.id;
  const headers: Record<string, string> = {
    ...forwardableHeaders(event.headers, outbound),
    ...(options.fixed && outbound.set ? fixedHeaders(outbound) : undefined),
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'x-relay-event-id': event.id,
    'x-relay-source': event.source,
  };
  const [newest] = secrets;
  if (newest !== undefined) {
    headers['x-relay-signature'] = relaySignature(newest, event.body);
    Object.assign(headers, standardWebhookHeaders(secrets, webhookId, nowSeconds, event.body));
  } else {
    headers['webhook-id'] = webhookId;
    headers['webhook-timestamp'] = String(nowSeconds);
  }
  return headers;
}
