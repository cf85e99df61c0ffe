// Messages of GET /events/stream (Server-Sent Events) in their wire shape. The OpenAPI document describes the
// stream only in prose, so the shapes are written here, as the api's feed sends them.
export type EventStatus = 'queued' | 'delivered' | 'failed' | 'paused' | 'ignored';

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

/** One message; `id` is the SSE id (ms timestamp) that `Last-Event-ID` resumes after. */
export type FeedMessage =
  | { type: 'event.created'; id: string; data: FeedEvent }
  | { type: 'attempt'; id: string; data: FeedAttempt }
  | { type: 'event.status'; id: string; data: FeedStatus }
  | { type: 'event.deleted'; id: string; data: { id: string } }
  /** More happened while disconnected than the api replays: reload lists instead of trusting the feed. */
  | { type: 'replay.truncated'; id: string | undefined; data: unknown };

export type StreamState = 'connecting' | 'open' | 'reconnecting' | 'closed';
