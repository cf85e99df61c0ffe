import type { bulkSelectionSchema, eventFilterSchema } from '@relay/contracts';
import {
  NO_DELIVERIES,
  type AttemptRecord,
  type DeliveryCounts,
  type EventDelivery,
  type EventDetail,
  type EventFilter,
  type EventSelection,
  type EventSummary,
} from '@relay/db';
import { jsonTextDepth, maskedHeaders } from '@relay/core';
import type { z } from 'zod';
import { isoOrNull as iso } from '../../http/timestamps';

/** `deliveries`: the event's destination deliveries by status (routing; none: all 0). */
export function summaryView(e: EventSummary, deliveries: DeliveryCounts = NO_DELIVERIES) {
  return {
    id: e.id,
    source: e.source,
    status: e.status,
    provider_id: e.ruleId,
    target_url: e.targetUrl,
    attempt_count: e.attemptCount,
    failure_reason: e.failureReason,
    last_error: e.lastError,
    acknowledged: e.acknowledgedAt !== null,
    acknowledged_at: iso(e.acknowledgedAt),
    created_at: e.createdAt.toISOString(),
    delivered_at: iso(e.deliveredAt),
    delivery_counts: { ...deliveries },
  };
}

/** Counts of deliveries already loaded (an event's detail lists them all). */
function countsOf(deliveries: readonly EventDelivery[]): DeliveryCounts {
  const counts = { ...NO_DELIVERIES };
  for (const d of deliveries) {
    counts.total += 1;
    counts[d.status] += 1;
  }
  return counts;
}

/** Deepest payload the view re-serialises; MAX_PAYLOAD_DEPTH cannot be set above it. */
const VIEW_MAX_PAYLOAD_DEPTH = 1_000;

// Reading a stored event must never fail. Ingest stores only valid JSON within MAX_PAYLOAD_DEPTH,
// but rows stored before a limit (or written by hand) may be neither: such a payload is shown as its
// stored text (`payload_as_text`), since re-serialising a deep one would overflow the stack.
function payloadOf(body: Buffer): { payload: unknown; payload_as_text?: true } {
  const text = body.toString('utf8');
  if (jsonTextDepth(body, VIEW_MAX_PAYLOAD_DEPTH) > VIEW_MAX_PAYLOAD_DEPTH)
    return { payload: text, payload_as_text: true };
  try {
    return { payload: JSON.parse(text) };
  } catch {
    return { payload: text, payload_as_text: true };
  }
}

const deliveryView = (d: EventDelivery) => ({
  id: d.id,
  destination_id: d.destinationId,
  target_url: d.targetUrl,
  status: d.status,
  attempt_count: d.attemptCount,
  failure_reason: d.failureReason,
  last_error: d.lastError,
  acknowledged: d.acknowledged,
  next_attempt_at: iso(d.nextAttemptAt),
  delivered_at: iso(d.deliveredAt),
});

/** `sensitiveHeaders`: the header names shown masked (SENSITIVE_HEADERS); `deliveries`: its destinations'. */
export function detailView(e: EventDetail, sensitiveHeaders: readonly string[], deliveries: EventDelivery[]) {
  return {
    ...summaryView(e, countsOf(deliveries)),
    ...payloadOf(e.body),
    // The sender's credentials are stored for forwarding, never shown, whoever reads.
    headers: maskedHeaders(e.headers, sensitiveHeaders),
    path: e.path,
    query: e.query,
    // The only way an event ends ignored so far: its rule's filter (docs/routing.md).
    ignored_reason: e.status === 'ignored' ? ('filtered' as const) : null,
    next_attempt_at: iso(e.nextAttemptAt),
    updated_at: e.updatedAt.toISOString(),
    deliveries: deliveries.map(deliveryView),
  };
}

// Ingest accepts only JSON media types (application/json, */*+json), so a stored type is one of them; a row
// without one (sent through the API, or older) was JSON too.
const JSON_MEDIA_TYPE = /^[a-z0-9!#$&^_.+-]+\/(?:[a-z0-9!#$&^_.+-]+\+)?json$/i;

/** The stored bytes and the content type they arrived with (GET /events/:id/body). */
export function storedBodyView(e: Pick<EventDetail, 'body' | 'headers'>): { contentType: string; bytes: Buffer } {
  const sent = e.headers['content-type'];
  const mediaType = sent?.split(';')[0]?.trim() ?? '';
  // Anything else is not shown under its own type: a stored text/html must never render on the relay's origin.
  return { contentType: sent && JSON_MEDIA_TYPE.test(mediaType) ? sent : 'application/json', bytes: e.body };
}

export function attemptView(a: AttemptRecord) {
  return {
    id: a.id,
    attempt_number: a.attemptNumber,
    kind: a.kind,
    hook_id: a.hookId,
    destination_id: a.destinationId,
    target_url: a.targetUrl,
    response_status: a.responseStatus,
    response_body: a.responseBody,
    error: a.error,
    duration_ms: a.durationMs,
    started_at: a.startedAt.toISOString(),
    finished_at: a.finishedAt.toISOString(),
  };
}

export function filterOf(query: z.output<typeof eventFilterSchema>): EventFilter {
  return {
    search: query.search,
    status: query.status,
    source: query.source,
    ruleId: query.rule_id,
    from: query.from ? new Date(query.from) : undefined,
    to: query.to ? new Date(query.to) : undefined,
    needsAttention: query.needs_attention === undefined ? undefined : query.needs_attention === 'true',
    deliveryStatus: query.delivery_status,
    destinationId: query.destination_id,
  };
}

/** A bulk action's body (ids or the list filters) as the repository selects events. */
export function selectionOf(body: z.output<typeof bulkSelectionSchema>): EventSelection {
  return 'ids' in body ? { ids: body.ids } : { filter: filterOf(body.filter) };
}
