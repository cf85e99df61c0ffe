// `paused`: the event's rule is unhealthy; it waits, with no attempts, until an admin resumes the rule.
// `ignored`: its rule's filter did not match (docs/routing.md); final, with no attempt and no hook.
export const EVENT_STATUSES = ['queued', 'delivered', 'failed', 'paused', 'ignored'] as const;
export type EventStatus = (typeof EVENT_STATUSES)[number];
/** A destination delivery's status (routing): no `ignored`, since a filtered-out destination gets no delivery. */
export type DeliveryStatus = Exclude<EventStatus, 'ignored'>;

/**
 * Why an event ended `failed`; stored as `failure_reason`. `relay_error`: the relay itself could not
 * complete or record an attempt several times in a row (DELIVERY_FAULT_MAX_DEFERS). `transform_error`: the rule's or
 * destination's transform failed (docs/transformations.md); final, no request was made.
 */
export type FailureReason =
  | 'no_target'
  | 'target_blocked'
  | 'http_status'
  | 'retries_exhausted'
  | 'invalid_target'
  | 'relay_error'
  | 'transform_error';
