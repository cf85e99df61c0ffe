// The headers `relay listen` sends to the local program: the sender's, as the relay stored them, so a receiver
// can verify the sender's own signature (X-Hub-Signature-256, Stripe-Signature, …) as it would in production.
const DROPPED = new Set([
  // Hop-by-hop (RFC 9110 §7.6.1): they described the sender's connection to the relay, not this one.
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'expect',
  // Describe the inbound request: this request has its own host and length, and the stored body is decoded.
  'host',
  'content-length',
  'content-encoding',
]);

/** The header the local program can deduplicate on or look the event up by. */
export const EVENT_ID_HEADER = 'x-relay-event-id';

/**
 * The stored headers minus hop-by-hop ones, the inbound request's own framing and the relay's own headers, plus
 * `x-relay-event-id`. A credential the events API shows masked ("Bearer [masked]") is left out: forwarding the mask
 * would only make the receiver's check fail in a confusing way.
 */
export function forwardHeaders(
  stored: Record<string, string>,
  event: { id: string; contentType: string | null },
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(stored)) {
    const key = name.toLowerCase();
    if (DROPPED.has(key) || key.startsWith('x-relay-') || value.endsWith('[masked]')) continue;
    out[key] = value;
  }
  // The body endpoint answers the content type the webhook was sent with; the stored header wins when present.
  if (!out['content-type'] && event.contentType) out['content-type'] = event.contentType;
  out[EVENT_ID_HEADER] = event.id;
  return out;
}
