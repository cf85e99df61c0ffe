import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { dataOf } from '@relay/client';
import { client } from '../../app/api-client';
import type { EventSummary } from './event-types';
import { needsAttentionQuery } from './needs-attention-query';
import { PER_PAGE_MAX } from './events-search';

/** A summary as the API gave it, and when it was asked for (this browser's clock). */
export interface LiveSummary {
  summary: EventSummary;
  at: number;
}

/** Changes arriving within this long share one fetch: a burst of messages costs one request. */
export const SUMMARY_DELAY_MS = 300;
/** At most one fetch per this long while messages keep coming (a stream of 50 events/s costs 1 request/s). */
export const SUMMARY_INTERVAL_MS = 1_000;

/**
 * The full summaries of the newest events, fetched again after live changes (`changes` moves): a feed message tells
 * a row's new status but not everything a reload shows (last error, target, delivery counts), so the rows it
 * touched read their summary from here. One request of the newest `size` events (the live rows are the newest, and
 * the list shows no more than that) rather than one per event, at most one in flight and one a second, through the organization's
 * own `GET /events` like any list. The needs-attention count is refreshed with it.
 */
export function useLiveSummaries(enabled: boolean, changes: number, size: number) {
  const queryClient = useQueryClient();
  const [summaries, setSummaries] = useState<ReadonlyMap<string, LiveSummary>>(new Map());
  const schedule = useRef<(() => void) | undefined>(undefined);
  const sizeRef = useRef(size);
  sizeRef.current = size;

  useEffect(() => {
    if (!enabled) return undefined;
    let alive = true;
    let inFlight = false;
    let dirty = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let lastAt = 0;
    const delay = () => Math.max(SUMMARY_DELAY_MS, lastAt + SUMMARY_INTERVAL_MS - Date.now());
    const run = async () => {
      timer = undefined;
      inFlight = true;
      dirty = false;
      const at = Date.now();
      lastAt = at;
      try {
        const perPage = Math.min(PER_PAGE_MAX, Math.max(1, sizeRef.current));
        const page = await dataOf(client.GET('/events', { params: { query: { page: 1, per_page: perPage } } }));
        // Replaced, not merged: the rows shown are among the newest `size`, so older entries would only pile up.
        if (alive) setSummaries(new Map(page.events.map((summary) => [summary.id, { summary, at }])));
        void queryClient.invalidateQueries({ queryKey: needsAttentionQuery.queryKey });
      } catch {
        // The rows keep what the messages told; the next change tries again.
      } finally {
        inFlight = false;
        if (dirty && alive) timer = setTimeout(() => void run(), delay());
      }
    };
    schedule.current = () => {
      if (inFlight) dirty = true;
      else timer ??= setTimeout(() => void run(), delay());
    };
    return () => {
      alive = false;
      if (timer !== undefined) clearTimeout(timer);
      schedule.current = undefined;
    };
  }, [enabled, queryClient]);

  useEffect(() => {
    if (changes > 0) schedule.current?.();
  }, [changes]);
  return summaries;
}
