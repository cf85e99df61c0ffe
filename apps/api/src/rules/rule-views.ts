import { AppError, checkTargetUrl, type TargetPolicy } from '@relay/core';
import type { HookRecord, ProviderRecord } from '@relay/db';

export const ruleView = (p: ProviderRecord) => ({
  id: p.id,
  source: p.source,
  target_url: p.targetUrl,
  active: p.active,
  description: p.description,
  has_signing_secret: p.signingSecret !== null,
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

/** A target URL that passes the network policy, normalised; otherwise 422 with the reason. */
export function allowedTarget(url: string, policy: TargetPolicy): string {
  const check = checkTargetUrl(url, policy);
  if (!check.ok) throw new AppError('target_url_rejected', check.message, { reason: check.reason });
  return check.url.toString();
}
