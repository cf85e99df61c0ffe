import type { EventSummary } from './event-types';
import type { LiveStatus } from './use-live-events';
import type { LiveSummary } from './use-live-summaries';

// A row that arrived live, until its summary is fetched: the feed says nothing of its deliveries yet (the fan-out
// follows) nor of its target.
const NO_DELIVERIES = { total: 0, queued: 0, delivered: 0, failed: 0, paused: 0 };

interface LiveInput {
  /** The page as fetched, and when it was (react-query's dataUpdatedAt). */
  fetched: readonly EventSummary[];
  fetchedAt: number;
  live: readonly Pick<EventSummary, 'id' | 'source' | 'status' | 'created_at'>[];
  deleted: ReadonlySet<string>;
  statuses: Readonly<Record<string, LiveStatus>>;
  attempts: Readonly<Record<string, number>>;
  summaries: ReadonlyMap<string, LiveSummary>;
  perPage: number;
}

/**
 * The rows the list shows: live arrivals above the fetched page, each row as the newest thing known of it. A
 * summary fetched after the page replaces the page's row; a status message newer than both is laid over it (its
 * summary follows). Attempts never go below a count already seen.
 */
export function liveRows(input: LiveInput): EventSummary[] {
  const { fetched, fetchedAt, statuses, attempts, summaries } = input;
  const known = new Set(fetched.map((e) => e.id));
  const fresh = input.live
    .filter((e) => !known.has(e.id))
    .map((e): EventSummary => ({
      ...e,
      provider_id: null,
      target_url: null,
      attempt_count: 0,
      failure_reason: null,
      last_error: null,
      acknowledged: false,
      acknowledged_at: null,
      delivered_at: null,
      delivery_counts: NO_DELIVERIES,
    }));
  const rows = [...fresh, ...fetched]
    .filter((e) => !input.deleted.has(e.id))
    .slice(0, Math.max(input.perPage, fresh.length));
  return rows.map((row) => {
    const summary = summaries.get(row.id);
    const base = summary && (summary.at > fetchedAt || !known.has(row.id)) ? summary.summary : row;
    const since = Math.max(fetchedAt, summary?.at ?? 0);
    const status = statuses[row.id];
    const told = status && status.at > since ? status : undefined;
    const attempt = attempts[row.id] ?? 0;
    if (!told && attempt <= base.attempt_count) return base;
    return {
      ...base,
      ...(told
        ? {
            status: told.status,
            failure_reason: told.failure_reason !== undefined ? told.failure_reason : base.failure_reason,
            acknowledged: told.acknowledged ?? base.acknowledged,
          }
        : {}),
      attempt_count: Math.max(attempt, base.attempt_count),
    };
  });
}
