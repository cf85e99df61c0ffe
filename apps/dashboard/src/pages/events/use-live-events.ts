import { useEffect, useRef, useState } from 'react';
import { apiPath } from '../../app/api-client';
import type { EventSummary } from './event-types';

type LiveEvent = Pick<EventSummary, 'id' | 'source' | 'status' | 'created_at'>;
/** An `event.status` message as received, and when (this browser's clock, to compare with fetches). */
export type LiveStatus = Pick<EventSummary, 'status'> &
  Partial<Pick<EventSummary, 'failure_reason' | 'acknowledged'>> & { at: number };

const MAX_LIVE = 200;

/**
 * New events from `GET /events/stream` while `enabled`. While `paused`, arrivals are counted but held back
 * (the "n new events" marker) so the rows under the reader's eyes do not move; `release` shows them.
 * Rows are batched per animation frame so a burst of messages renders once.
 */
export function useLiveEvents(enabled: boolean, paused: boolean) {
  const [live, setLive] = useState<LiveEvent[]>([]);
  const [held, setHeld] = useState<LiveEvent[]>([]);
  const [statuses, setStatuses] = useState<Record<string, LiveStatus>>({});
  // Bumped by every message that changes what a row shows: the live summaries refetch after it (use-live-summaries).
  const [changes, setChanges] = useState(0);
  // Main delivery attempts finished since the page was fetched: a row turning `delivered` shows its attempt too.
  const [attempts, setAttempts] = useState<Record<string, number>>({});
  const [deleted, setDeleted] = useState<ReadonlySet<string>>(new Set());
  const pausedRef = useRef(paused);
  pausedRef.current = paused;

  useEffect(() => {
    // Without EventSource (old browsers, tests) the page still works, just without live rows.
    if (!enabled || typeof EventSource === 'undefined') return undefined;
    const source = new EventSource(apiPath('/events/stream'), { withCredentials: true });
    let pending: LiveEvent[] = [];
    let frame: number | undefined;
    const flush = () => {
      frame = undefined;
      const batch = pending.reverse();
      pending = [];
      if (pausedRef.current) setHeld((h) => [...batch, ...h].slice(0, MAX_LIVE));
      else setLive((l) => [...batch, ...l].slice(0, MAX_LIVE));
      setChanges((n) => n + 1);
    };
    const onCreated = (m: MessageEvent<string>) => {
      pending.push(JSON.parse(m.data) as LiveEvent);
      frame ??= requestAnimationFrame(flush);
    };
    const onStatus = (m: MessageEvent<string>) => {
      const { id, ...s } = JSON.parse(m.data) as Omit<LiveStatus, 'at'> & { id: string };
      setStatuses((all) => ({ ...all, [id]: { ...s, at: Date.now() } }));
      setChanges((n) => n + 1);
    };
    source.addEventListener('event.created', onCreated);
    // Deleted elsewhere (another tab, a bulk delete, the API): the row goes.
    const onDeleted = (m: MessageEvent<string>) => {
      const { id } = JSON.parse(m.data) as { id: string };
      setDeleted((all) => new Set(all).add(id));
    };
    const onAttempt = (m: MessageEvent<string>) => {
      const a = JSON.parse(m.data) as { event_id: string; attempt_number: number; kind: 'main' | 'hook' };
      if (a.kind !== 'main') return;
      setAttempts((all) => ({ ...all, [a.event_id]: Math.max(all[a.event_id] ?? 0, a.attempt_number) }));
      setChanges((n) => n + 1);
    };
    // A destination delivery made or changed: the row's delivery counts come with the next summaries.
    const onDelivery = () => setChanges((n) => n + 1);
    source.addEventListener('event.status', onStatus);
    source.addEventListener('attempt', onAttempt);
    source.addEventListener('event.deleted', onDeleted);
    source.addEventListener('delivery.status', onDelivery);
    return () => {
      if (frame !== undefined) cancelAnimationFrame(frame);
      source.close();
    };
  }, [enabled]);

  const release = () => {
    setLive((l) => [...held, ...l].slice(0, MAX_LIVE));
    setHeld([]);
  };
  const reset = () => {
    setLive([]);
    setHeld([]);
  };
  return { live, heldCount: held.length, statuses, attempts, deleted, changes, release, reset };
}
