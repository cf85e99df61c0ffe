import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';

/** `X-Relay-Signature` value: HMAC-SHA256 of the raw body, hex. */
export function relaySignature(secret: string, body: Uint8Array): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

// Standard Webhooks (standardwebhooks.com): a `whsec_` secret carries base64 key bytes;
// any other secret is used as its UTF-8 bytes, so one setting serves both signatures.
export function standardWebhookKey(secret: string): Buffer {
  return secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : Buffer.from(secret, 'utf8');
}

// Node 24's createHmac spends 15-20 µs on a Buffer key's checks that a KeyObject skips (measured: 19 µs against 3 µs
// per 1.3 KB signature; docs/performance.md, "The signing key made once per secret"), so each secret's key is made
// once. Bounded: past KEYS_KEPT secrets the cache starts again, so secrets rotated away do not pile up.
export const KEYS_KEPT = 1_000;
const keys = new Map<string, KeyObject>();

/** The Standard Webhooks key of a secret as a KeyObject, made once per secret (up to KEYS_KEPT of them). */
export function standardWebhookKeyObject(secret: string): KeyObject {
  let key = keys.get(secret);
  if (key === undefined) {
    if (keys.size >= KEYS_KEPT) keys.clear();
    key = createSecretKey(standardWebhookKey(secret));
    keys.set(secret, key);
  }
  return key;
}

export interface StandardWebhookHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/**
 * `secrets` is one secret, or several during a rotation window (newest first): the signature header
 * then lists one `v1,` signature per secret, space-separated, and receivers accept any that verifies.
 */
export function standardWebhookHeaders(
  secrets: string | readonly string[],
  messageId: string,
  timestampSeconds: number,
  body: Uint8Array,
): StandardWebhookHeaders {
  const signed = Buffer.concat([Buffer.from(`${messageId}.${timestampSeconds}.`), body]);
  const signatures = [secrets]
    .flat()
    .map((secret) => `v1,${createHmac('sha256', standardWebhookKeyObject(secret)).update(signed).digest('base64')}`);
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signatures.join(' '),
  };
}
