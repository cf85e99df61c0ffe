import type { Destination, DestinationChange } from './destination-types';
import { targetDraftOf, targetOptionsChange } from './target-options-draft';
import type { StoredTargetOptions, TargetOptionsDraft } from './target-options-draft';

// The destination form's values, and what a create or an update sends: like the rule form, an update sends only
// the fields that changed, and the signing secret only when typed (it is write-only).

export interface DestinationValues {
  name: string;
  targetUrl: string;
  description: string;
  active: boolean;
  secret: string;
  removeSecret: boolean;
  options: TargetOptionsDraft;
}

/** The destination's options as target-options-draft.ts reads them. */
const storedOptions = (d: Destination): StoredTargetOptions => ({
  filter: d.filter,
  unhealthy_after_seconds: d.health.unhealthy_after_seconds,
  delivery_policy: d.delivery_policy,
  outbound_headers: d.outbound_headers,
  transform: d.transform,
  has_transform: d.has_transform,
  forward_path_query: d.forward_path_query,
  rate_limit: d.rate_limit,
  max_concurrency: d.max_concurrency,
});

export function destinationValuesOf(destination?: Destination): DestinationValues {
  return {
    name: destination?.name ?? '',
    targetUrl: destination?.target_url ?? '',
    description: destination?.description ?? '',
    active: destination?.active ?? true,
    secret: '',
    removeSecret: false,
    options: targetDraftOf(destination && storedOptions(destination)),
  };
}

/** The body of POST (no destination yet) or PATCH (only what differs from the stored destination). */
export function destinationChange(values: DestinationValues, destination?: Destination): DestinationChange {
  const { name, targetUrl, description, active, secret, removeSecret, options } = values;
  const body: DestinationChange = {};
  // Left empty on a new destination, the API names it after the target's host.
  if (destination ? name !== destination.name : name.trim()) body.name = name.trim();
  if (!destination || targetUrl !== destination.target_url) body.target_url = targetUrl;
  if (destination ? description !== (destination.description ?? '') : description)
    body.description = description || null;
  if (!destination || active !== destination.active) body.active = active;
  if (secret) body.signing_secret = secret;
  else if (destination?.has_signing_secret && removeSecret) body.signing_secret = null;
  return { ...body, ...targetOptionsChange(options, destination && storedOptions(destination)) };
}
