import type { EventStatus, OrgId } from '@relay/core';

// An event as the repositories return it, and the row of the events table it is read from (EVENT_COLUMNS in
// event.sql.ts). A file of its own, so that event.sql.ts and event.repository.ts need not import each other.
export interface StoredEvent {
  id: string;
  organizationId: OrgId;
  source: string;
  ruleId: string | null;
  targetUrl: string | null;
  body: Uint8Array;
  headers: Record<string, string>;
  /** The request path after the source segment ("" if none) and its query, as received (routing filters). */
  path: string;
  query: Record<string, string | string[]>;
  status: EventStatus;
  attemptCount: number;
  nextAttemptAt: Date | null;
  failureReason: string | null;
  lastError: string | null;
  createdAt: Date;
  deliveredAt: Date | null;
  /** attempt_count when the current delivery run began (a retry starts a new run). */
  runStartAttempt: number;
  /** The primary's transformed request, stored at its run's first attempt (issue 30); absent or null: none. */
  transformed?: StoredTransform | null;
}

/** A transform's output as stored with the event (the primary) or the delivery (a destination). */
export interface StoredTransform {
  body: Buffer;
  headers: Record<string, string>;
  /** The returned path and query string (`/orders?a=1`), appended to the target with forward_path_query. */
  path: string | null;
}

/** A transform's output about to be stored, with its captured console output. */
export interface NewTransform extends StoredTransform {
  logs: string;
}

export interface TransformRow {
  transformed_body: Buffer | null;
  transformed_headers: Record<string, string> | null;
  transformed_path: string | null;
}

export const transformOf = (row: TransformRow): StoredTransform | null =>
  row.transformed_body === null
    ? null
    : { body: row.transformed_body, headers: row.transformed_headers ?? {}, path: row.transformed_path };

export interface EventRow extends TransformRow {
  id: string;
  organization_id: string;
  source: string;
  provider_id: string | null;
  target_url: string | null;
  body: Buffer;
  headers: Record<string, string>;
  path: string;
  query: Record<string, string | string[]>;
  status: EventStatus;
  attempt_count: number;
  next_attempt_at: Date | null;
  failure_reason: string | null;
  last_error: string | null;
  created_at: Date;
  delivered_at: Date | null;
  run_start_attempt: number;
}

export function toStoredEvent(row: EventRow): StoredEvent {
  return {
    id: row.id,
    organizationId: row.organization_id as OrgId,
    source: row.source,
    ruleId: row.provider_id,
    targetUrl: row.target_url,
    body: row.body,
    headers: row.headers,
    path: row.path,
    query: row.query,
    status: row.status,
    attemptCount: row.attempt_count,
    nextAttemptAt: row.next_attempt_at,
    failureReason: row.failure_reason,
    lastError: row.last_error,
    createdAt: row.created_at,
    deliveredAt: row.delivered_at,
    runStartAttempt: row.run_start_attempt,
    transformed: transformOf(row),
  };
}
