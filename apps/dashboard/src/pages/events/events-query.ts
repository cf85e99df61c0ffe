import { queryOptions } from '@tanstack/react-query';
import { dataOf } from '@relay/client';
import { client } from '../../app/api-client';
import type { EventPage } from './event-types';
import { apiFilterOf, type EventsSearch } from './events-search';

/**
 * One page of GET /events for the page's search params. The route's loader starts it while the page's code is still
 * loading, and the page reads the same cache entry; the short staleTime keeps the page from fetching it a second
 * time on mount (live rows and invalidation after actions keep it current after that).
 */
export const eventsListQuery = (search: EventsSearch) =>
  queryOptions({
    queryKey: ['events', 'list', search],
    queryFn: async (): Promise<EventPage> =>
      dataOf(
        client.GET('/events', {
          params: { query: { ...apiFilterOf(search), page: search.page, per_page: search.per_page } },
        }),
      ),
    staleTime: 5_000,
  });
