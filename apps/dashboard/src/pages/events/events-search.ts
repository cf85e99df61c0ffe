import { z } from 'zod';

export const EVENT_STATUSES = ['queued', 'delivered', 'failed', 'paused', 'ignored'] as const;
export const PER_PAGE_MAX = 200;

// The Events page's filters live in the URL so a view can be shared as a link. A bad value in a hand-edited
// link falls back to "no filter" rather than an error page.
export const eventsSearch = z.object({
  search: z.string().trim().max(200).optional().catch(undefined),
  status: z.enum(EVENT_STATUSES).optional().catch(undefined),
  source: z.string().max(64).optional().catch(undefined),
  from: z.iso.datetime({ offset: true }).optional().catch(undefined),
  to: z.iso.datetime({ offset: true }).optional().catch(undefined),
  needs_attention: z.boolean().optional().catch(undefined),
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
    from: search.from,
    to: search.to,
    needs_attention:
      search.needs_attention === undefined ? undefined : (String(search.needs_attention) as 'true' | 'false'),
  };
}

export const hasFilter = (search: EventsSearch) => Object.values(apiFilterOf(search)).some((v) => v !== undefined);
