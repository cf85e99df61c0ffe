import type { HookRecord, RuleRecord } from '@relay/db';
import { transformPacingView } from './transform-pacing.views';

/**
 * Who signs deliveries: the rule's (or destination's) own secret, else DEFAULT_SIGNING_SECRET when the install sets
 * it (`defaultSigns`), else nobody.
 */
export const signingOf = (ownSecret: string | null, defaultSigns: boolean) =>
  ownSecret !== null ? ('own' as const) : defaultSigns ? ('default' as const) : ('none' as const);

// A replaced secret's expiry, while it is still in use.
const liveUntil = (secret: string | null, expiresAt: Date | null) =>
  secret !== null && expiresAt !== null && expiresAt > new Date() ? expiresAt.toISOString() : null;

/**
 * A rule as the API shows it (`/rules`): the signing secrets only as whether there is one and
 * until when a replaced one still signs; `defaultSigns`: DEFAULT_SIGNING_SECRET is set.
 */
export const ruleView = (p: RuleRecord, defaultSigns: boolean) => ({
  id: p.id,
  name: p.name,
  source: p.source,
  target_url: p.targetUrl,
  active: p.active,
  description: p.description,
  has_signing_secret: p.signingSecret !== null,
  signing: signingOf(p.signingSecret, defaultSigns),
  previous_secret_expires_at: liveUntil(p.previousSigningSecret, p.previousSecretExpiresAt),
  outbound_headers: {
    forward: p.outboundHeaders.forward ?? [],
    set: p.outboundHeaders.set ?? {},
    remove: p.outboundHeaders.remove ?? [],
  },
  dedup: p.dedup,
  duplicate_count: p.duplicateCount,
  verification: p.verification,
  has_verification_secret: p.verificationSecret !== null,
  previous_verification_secret_expires_at: liveUntil(p.previousVerificationSecret, p.previousVerificationExpiresAt),
  signature_failures: { count: p.signatureFailureCount, last_at: p.lastSignatureFailureAt?.toISOString() ?? null },
  health: {
    status: p.health,
    reason: p.unhealthyReason,
    since: p.unhealthySince?.toISOString() ?? null,
    failing_since: p.failingSince?.toISOString() ?? null,
    unhealthy_after_seconds: p.unhealthyAfterSeconds,
  },
  ordering: p.ordering,
  delivery_policy: p.deliveryPolicy,
  filter: p.filter,
  ...transformPacingView(p),
  transform: p.transform,
  created_at: p.createdAt.toISOString(),
  updated_at: p.updatedAt.toISOString(),
});

/** A rule in a list: without its transform's code (up to 256 KB a rule), which `has_transform` stands for. */
export function ruleListView(p: RuleRecord, defaultSigns: boolean) {
  const { transform: _code, ...rest } = ruleView(p, defaultSigns);
  return rest;
}

export const hookView = (h: HookRecord) => ({
  id: h.id,
  rule_id: h.ruleId,
  name: h.name,
  target_url: h.targetUrl,
  trigger: h.trigger,
  active: h.active,
  description: h.description,
  created_at: h.createdAt.toISOString(),
  updated_at: h.updatedAt.toISOString(),
});
