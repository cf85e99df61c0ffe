import type { DestinationRecord } from '@relay/db';
import { signingOf } from '../rules/rule.views';
import { transformPacingView } from '../rules/transform-pacing.views';

/**
 * A destination as the API shows it (`/rules/{id}/destinations`): the signing secret only as whether there is one;
 * `defaultSigns`: DEFAULT_SIGNING_SECRET is set (it signs a destination without its own, never the rule's secret).
 */
export const destinationView = (d: DestinationRecord, defaultSigns: boolean) => ({
  id: d.id,
  rule_id: d.ruleId,
  name: d.name,
  target_url: d.targetUrl,
  filter: d.filter,
  active: d.active,
  description: d.description,
  has_signing_secret: d.signingSecret !== null,
  signing: signingOf(d.signingSecret, defaultSigns),
  outbound_headers: {
    forward: d.outboundHeaders.forward ?? [],
    set: d.outboundHeaders.set ?? {},
    remove: d.outboundHeaders.remove ?? [],
  },
  delivery_policy: d.deliveryPolicy,
  health: {
    status: d.health,
    reason: d.unhealthyReason,
    since: d.unhealthySince?.toISOString() ?? null,
    failing_since: d.failingSince?.toISOString() ?? null,
    unhealthy_after_seconds: d.unhealthyAfterSeconds,
  },
  ...transformPacingView(d),
  transform: d.transform,
  created_at: d.createdAt.toISOString(),
  updated_at: d.updatedAt.toISOString(),
});

/** A destination in a list: without its transform's code, which `has_transform` stands for. */
export function destinationListView(d: DestinationRecord, defaultSigns: boolean) {
  const { transform: _code, ...rest } = destinationView(d, defaultSigns);
  return rest;
}
