import type { paths } from '@relay/client';
import { z } from 'zod';

type ListQuery = NonNullable<paths['/events']['get']['parameters']['query']>;
type DeliveryStatus = NonNullable<ListQuery['delivery_status']>;

export const EVENT_STATUSES = ['queued', 'delivered', 'failed', 'paused', 'ignored'] as const;
/** A destination delivery's statuses (the list filter's values, checked against the client's). */
export const DELIVERY_STATUSES = ['queued', 'delivered', 'failed', 'paused'] as const satisfies DeliveryStatus[];
export const PER_PAGE_MAX = 200;

// The Events page's filters live in the URL so a view can be shared as a link. A bad value in a hand-edited
// link falls back to "no filter" rather than an error page.
export const eventsSearch = z.object({
  search: z.string().trim().max(200).optional().catch(undefined),
  status: z.enum(EVENT_STATUSES).optional().catch(undefined),
  source: z.string().max(64).optional().catch(undefined),
  /** One rule's events (a source can feed several rules): set by the overview's and the rule page's links. */
  rule_id: z.uuid().optional().catch(undefined),
  from: z.iso.datetime({ offset: true }).optional().catch(undefined),
  to: z.iso.datetime({ offset: true }).optional().catch(undefined),
  needs_attention: z.boolean().optional().catch(undefined),
  /** Events with a destination delivery in this status (with `destination_id`: that destination's). */
  delivery_status: z.enum(DELIVERY_STATUSES).optional().catch(undefined),
  destination_id: z.uuid().optional().catch(undefined),
  page: z.coerce.number().int().min(1).default(1).catch(1),
  per_page: z.coerce.number().int().min(1).max(PER_PAGE_MAX).default(50).catch(50),
});

export type EventsSearch = z.infer<typeof eventsSearch>;

/** The API's filter fields (GET /events and bulk actions) from the page's search params. */
export function apiFilterOf(search: EventsSearch) {
  return {
    search: search.search || undefined,
    status: search.status,
    source: search.source || undefined,
    rule_id: search.rule_id,
    from: search.from,
    to: search.to,
    needs_attention:
      search.needs_attention === undefined ? undefined : (String(search.needs_attention) as 'true' | 'false'),
    delivery_status: search.delivery_status,
    destination_id: search.destination_id,
  };
}

export const hasFilter = (search: EventsSearch) => Object.values(apiFilterOf(search)).some((v) => v !== undefined);
