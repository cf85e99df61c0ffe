import { createHmac } from 'node:crypto';

/** `X-Relay-Signature` value: HMAC-SHA256 of the raw body, hex. */
export function relaySignature(secret: string, body: Uint8Array): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

// Standard Webhooks (standardwebhooks.com): a `whsec_` secret carries base64 key bytes;
// any other secret is used as its UTF-8 bytes, so one setting serves both signatures.
export function standardWebhookKey(secret: string): Buffer {
  return secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : Buffer.from(secret, 'utf8');
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
    .map((secret) => `v1,${createHmac('sha256', standardWebhookKey(secret)).update(signed).digest('base64')}`);
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signatures.join(' '),
  };
}
