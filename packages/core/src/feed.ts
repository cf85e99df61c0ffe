import type { DeliveryStatus, EventStatus } from './event';

// Messages of the live event feed (GET /events/stream), in their wire shape: the api streams them
// as they are, whether they come live over pub/sub or are replayed from the database.

export interface FeedEvent {
  id: string;
  source: string;
  status: EventStatus;
  created_at: string;
}
export interface FeedAttempt {
  event_id: string;
  attempt_number: number;
  kind: 'main' | 'hook';
  hook_id: string | null;
  target_url: string;
  response_status: number | null;
  error: string | null;
  duration_ms: number;
  finished_at: string;
}
export interface FeedStatus {
  id: string;
  status: EventStatus;
  failure_reason: string | null;
  acknowledged: boolean;
}

/** A destination delivery (routing) whose status or attempt count changed, or that was just made. */
export interface FeedDelivery {
  event_id: string;
  delivery_id: string;
  destination_id: string;
  status: DeliveryStatus;
  attempt_count: number;
}

/** One message of the feed; `at` (ms since epoch) orders it and is the SSE `id`. */
export type FeedMessage =
  | { type: 'event.created'; at: number; data: FeedEvent }
  | { type: 'attempt'; at: number; data: FeedAttempt }
  | { type: 'event.status'; at: number; data: FeedStatus }
  | { type: 'event.deleted'; at: number; data: { id: string } }
  | { type: 'delivery.status'; at: number; data: FeedDelivery };
