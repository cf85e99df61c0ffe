// The events API's shapes, from the typed client.
import type { AnswerOf } from '@relay/client';

export type EventPage = AnswerOf<'/events', 'get'>;
export type EventSummary = EventPage['events'][number];
export type EventDetail = AnswerOf<'/events/{id}', 'get'>;
export type Attempt = AnswerOf<'/events/{id}/attempts', 'get'>['attempts'][number];
