import { queryOptions } from '@tanstack/react-query';
import { dataOf } from '@relay/client';
import { client } from '../../app/api-client';
import type { EventPage } from './event-types';

/**
 * What "needs attention" means everywhere (the overview's card, the events page's shortcut): the API's own
 * `needs_attention=true` filter, failed events nobody acknowledged. One query: its ten newest and its total.
 */
export const needsAttentionQuery = queryOptions({
  queryKey: ['events', 'needs-attention'],
  queryFn: async (): Promise<EventPage> =>
    dataOf(client.GET('/events', { params: { query: { needs_attention: 'true', per_page: 10 } } })),
});
