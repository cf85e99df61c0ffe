import { relaySignature, standardWebhookHeaders } from '@relay/core';
import type { NoticeJobData } from '@relay/queue';
import { USER_AGENT } from '../delivery-request';

/** What a notification URL receives: the notice as JSON, its id also in `webhook-id`. */
export function noticeBody(notice: NoticeJobData): Buffer {
  const { id, type, orgId, at, data } = notice;
  return Buffer.from(JSON.stringify({ id, type, organization_id: orgId, at, data }));
}

/**
 * Headers of a notice, signed exactly as deliveries are (delivery-request.ts): X-Relay-Signature over
 * the body and the Standard Webhooks headers, so a receiver of the relay's deliveries verifies notices
 * with the same code. Without a secret: unsigned, with webhook-id and webhook-timestamp only.
 */
export function noticeHeaders(
  notice: NoticeJobData,
  body: Buffer,
  secret: string | undefined,
  nowSeconds: number,
): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'x-relay-notice-type': notice.type,
  };
  if (secret === undefined) {
    return { ...headers, 'webhook-id': notice.id, 'webhook-timestamp': String(nowSeconds) };
  }
  return {
    ...headers,
    'x-relay-signature': relaySignature(secret, body),
    ...standardWebhookHeaders(secret, notice.id, nowSeconds, body),
  };
}
