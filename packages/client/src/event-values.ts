import type { AnswerOf } from './answer-of';
import type { operations } from './schema';

// The closed value sets of events and their deliveries, for clients that offer them as choices (the CLI's flags).
// Types cannot be iterated, so the lists are written here once; `satisfies` fails the build when the API's schema
// and a list disagree.

type EventQuery = NonNullable<operations['getEvents']['parameters']['query']>;
type Delivery = AnswerOf<'/events/{id}', 'get'>['deliveries'][number];

export const EVENT_STATUSES = [
  'queued',
  'delivered',
  'failed',
  'paused',
  'ignored',
] as const satisfies readonly NonNullable<EventQuery['status']>[];
/** A destination delivery's statuses (routing, docs/routing.md): no `ignored`, a filtered-out one gets no delivery. */
export const DELIVERY_STATUSES = ['queued', 'delivered', 'failed', 'paused'] as const satisfies readonly (NonNullable<
  EventQuery['delivery_status']
> &
  Delivery['status'])[];
