import type { HookRecord, ProviderRecord } from '@relay/db';

/**
 * A provider as the API shows it (`/rules`): the signing secrets only as whether there is one and
 * until when a replaced one still signs.
 */
export const providerView = (p: ProviderRecord) => ({
  id: p.id,
  source: p.source,
  target_url: p.targetUrl,
  active: p.active,
  description: p.description,
  has_signing_secret: p.signingSecret !== null,
  previous_secret_expires_at:
    p.previousSigningSecret !== null && p.previousSecretExpiresAt !== null && p.previousSecretExpiresAt > new Date()
      ? p.previousSecretExpiresAt.toISOString()
      : null,
  outbound_headers: { forward: p.outboundHeaders.forward ?? [] },
  created_at: p.createdAt.toISOString(),
  updated_at: p.updatedAt.toISOString(),
});

export const hookView = (h: HookRecord) => ({
  id: h.id,
  rule_id: h.providerId,
  target_url: h.targetUrl,
  trigger: h.trigger,
  active: h.active,
  description: h.description,
  created_at: h.createdAt.toISOString(),
  updated_at: h.updatedAt.toISOString(),
});
