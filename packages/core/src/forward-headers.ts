// Which request headers of a webhook are kept and forwarded. Receivers often verify the sender's
// own signature (X-Hub-Signature-256, Stripe-Signature, ...), so everything is forwarded except:
// hop-by-hop headers (RFC 9110 §7.6.1), Host and Content-Length (they describe the inbound hop),
// cookies (never stored), headers that steer the relay itself, and headers the relay sets itself.
const NEVER_STORED = new Set([
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
  'host',
  'content-length',
  'cookie',
  'set-cookie',
  'x-target-url',
]);

// Stored (the events API shows them, masked) but forwarded only when a rule lists them in its
// outbound headers: the sender's credential for the relay is not the target's business.
export const OPT_IN_HEADERS = ['authorization'] as const;
export type OptInHeader = (typeof OPT_IN_HEADERS)[number];

/** A rule's outbound header options: opt-in headers forwarded, headers set (fixed values) and removed. */
export interface OutboundHeaders {
  forward?: OptInHeader[];
  set?: Record<string, string>;
  remove?: string[];
}

const SET_BY_RELAY = new Set(['content-type', 'user-agent', 'accept-encoding', 'content-encoding']);
const RELAY_PREFIXES = ['x-relay-', 'webhook-'];

/** Headers worth storing with an event: names lower-cased, repeated values joined. */
export function storableHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  // Headers named in Connection are hop-by-hop for this connection only.
  const connection = Object.entries(raw).find(([name]) => name.toLowerCase() === 'connection')?.[1];
  const named = new Set(
    [connection ?? []]
      .flat()
      .join(',')
      .split(',')
      .map((token) => token.trim().toLowerCase())
      .filter(Boolean),
  );
  for (const [name, value] of Object.entries(raw)) {
    const key = name.toLowerCase();
    if (value === undefined || NEVER_STORED.has(key) || named.has(key)) continue;
    out[key] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** Stored headers that go out with a delivery, before the relay adds its own. */
export function forwardableHeaders(
  stored: Record<string, string>,
  outbound: OutboundHeaders = {},
): Record<string, string> {
  const out: Record<string, string> = {};
  const optedIn = new Set<string>(outbound.forward ?? []);
  const removed = outbound.remove?.length ? new Set(outbound.remove.map((name) => name.toLowerCase())) : undefined;
  for (const [key, value] of Object.entries(storableHeaders(stored))) {
    if (isRelayOwned(key) || removed?.has(key)) continue;
    if ((OPT_IN_HEADERS as readonly string[]).includes(key) && !optedIn.has(key)) continue;
    out[key] = value;
  }
  return out;
}

const isRelayOwned = (name: string) =>
  SET_BY_RELAY.has(name) || RELAY_PREFIXES.some((prefix) => name.startsWith(prefix));

// Framing and hop-by-hop headers describe the relay's own connection to the target.
const FRAMING = new Set([
  'content-length',
  'transfer-encoding',
  'host',
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'upgrade',
  'te',
  'trailer',
  'expect',
]);

/**
 * Headers a rule can neither set nor remove on the way out: framing and hop-by-hop ones, and those the
 * relay sets itself (content-type, user-agent, its x-relay-* and webhook-* signatures).
 */
export function isRelayOwnedOutboundHeader(name: string): boolean {
  const key = name.toLowerCase();
  return FRAMING.has(key) || isRelayOwned(key);
}

/**
 * A rule's fixed outbound headers (`outbound_headers.set`), names lower-cased so they replace inbound
 * ones of the same name. The API refuses the relay's own names; they are skipped here too, so a row
 * written otherwise can never replace the relay's content type or signatures.
 */
export function fixedHeaders(outbound: OutboundHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(outbound.set ?? {})) {
    const key = name.toLowerCase();
    if (!isRelayOwnedOutboundHeader(key)) out[key] = value;
  }
  return out;
}
