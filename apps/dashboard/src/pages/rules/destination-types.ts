// A rule's destinations (docs/routing.md, "Destinations"), from the typed client.
import type { AnswerOf, paths } from '@relay/client';

export type Destination = AnswerOf<'/rules/{id}/destinations/{destinationId}', 'get'>;
export type DestinationChange = NonNullable<
  paths['/rules/{id}/destinations/{destinationId}']['patch']['requestBody']
>['content']['application/json'];
/** One destination's delivery counts in GET /stats (`by_destination`). */
export type DestinationStats = AnswerOf<'/stats', 'get'>['by_destination'][number];
