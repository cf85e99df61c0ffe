import type { AnswerOf } from '@relay/client';
import { destinationSchema } from '@relay/contracts';
import { z } from 'zod';
import { pacingStateSummary } from './rule-views';

// A rule's destinations (docs/routing.md) as tool results show them: the API's fields (@relay/contracts), the
// outbound headers as the three lists the tools take, never a signing secret (the API returns none either).

type Destination = AnswerOf<'/rules/{id}/destinations/{destinationId}', 'get'>;

const { outbound_headers, health, ...fields } = destinationSchema.shape;
const { forward, set, remove } = outbound_headers.shape;
const { status, reason, since, unhealthy_after_seconds } = health.shape;

export const destinationIdInput = z.uuid().describe('The destination id (from list_destinations).');

export const destinationSummary = z.object({
  ...fields,
  has_signing_secret: fields.has_signing_secret.describe(
    "Deliveries carry its signature; without one, DEFAULT_SIGNING_SECRET's when the install sets it, never the rule's.",
  ),
  forward_headers: forward.describe('Inbound headers forwarded beyond the default set.'),
  set_headers: set,
  remove_headers: remove,
  unhealthy_after_seconds: unhealthy_after_seconds.describe('The health threshold; null: the install-wide one.'),
  health: z
    .object({ status, reason, since })
    .describe("An unhealthy destination's deliveries wait as paused until resume_destination."),
  pacing_state: pacingStateSummary,
  link: z.string().describe("The rule's dashboard page, where its destinations are listed."),
});

export const destinationView = (
  d: Destination,
  link: (path: string) => string,
): z.infer<typeof destinationSummary> => ({
  id: d.id,
  rule_id: d.rule_id,
  name: d.name,
  target_url: d.target_url,
  filter: d.filter,
  active: d.active,
  description: d.description,
  has_signing_secret: d.has_signing_secret,
  signing: d.signing,
  delivery_policy: d.delivery_policy,
  created_at: d.created_at,
  updated_at: d.updated_at,
  forward_headers: d.outbound_headers.forward,
  set_headers: d.outbound_headers.set,
  remove_headers: d.outbound_headers.remove,
  unhealthy_after_seconds: d.health.unhealthy_after_seconds,
  health: { status: d.health.status, reason: d.health.reason, since: d.health.since },
  has_transform: d.has_transform,
  forward_path_query: d.forward_path_query,
  rate_limit: d.rate_limit,
  max_concurrency: d.max_concurrency,
  ...(d.pacing_state !== undefined ? { pacing_state: d.pacing_state } : {}),
  link: link(`/rules/${d.rule_id}`),
});
