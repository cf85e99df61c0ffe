export type EventStatus = 'queued' | 'delivered' | 'failed';

export interface EventSummary {
  id: string;
  source: string;
  status: EventStatus;
  provider_id: string | null;
  target_url: string | null;
  attempt_count: number;
  failure_reason: string | null;
  acknowledged: boolean;
  acknowledged_at: string | null;
  created_at: string;
  delivered_at: string | null;
}

export interface EventDetail extends EventSummary {
  payload: unknown;
  payload_as_text?: true;
  headers: Record<string, string>;
  last_error: string | null;
  next_attempt_at: string | null;
  updated_at: string;
}

export interface Attempt {
  id: string;
  attempt_number: number;
  kind: 'main' | 'hook';
  hook_id: string | null;
  target_url: string;
  response_status: number | null;
  response_body: string | null;
  error: string | null;
  duration_ms: number;
  started_at: string;
  finished_at: string;
}

export interface EventPage {
  events: EventSummary[];
  total: number;
  page: number;
  per_page: number;
  pages: number;
}
