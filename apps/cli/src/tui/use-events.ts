// The live event list: the first page from GET /events (with the filter as `search`), then the live stream's
// messages applied to it. A dropped stream only changes the state shown in the header; the list stays.
import { dataOf } from '@relay/client';
import { useCallback, useEffect, useRef, useState } from 'react';
import type { Connection } from '../context';
import { openEventStream, type EventStream, type EventStreamOptions } from '../stream/event-stream';
import { errorNotice, type Notice } from './tui-actions';
import { applyFeedMessage, type EventRow } from './tui-model';

export type StreamView = 'connecting' | 'live' | 'reconnecting' | 'offline';
export type OpenStream = (options: EventStreamOptions) => EventStream;

export interface EventsState {
  rows: EventRow[];
  total: number;
  /** false: past 10,000 matches the API estimated `total` rather than counting. */
  totalExact: boolean;
  loading: boolean;
  stream: StreamView;
  /** Why the list or the stream failed, for the status line. */
  error: Notice | undefined;
  reload(): void;
  /** Drops a row at once (after a delete), whatever the stream says later. */
  remove(id: string): void;
  /** The rows as of now, for key handlers that run before the next render. */
  latest(): EventRow[];
}

const PAGE_SIZE = 100;
// Many events arriving under a filter cause one reload, not one each.
const RELOAD_DEBOUNCE_MS = 300;

export function useEvents(connection: Connection, search: string, openStream: OpenStream = openEventStream) {
  const [rows, setRowsState] = useState<EventRow[]>([]);
  const [total, setTotal] = useState(0);
  const [totalExact, setTotalExact] = useState(true);
  const [loading, setLoading] = useState(true);
  const [stream, setStream] = useState<StreamView>('connecting');
  // Apart, so that a list that loads fine does not hide why the stream ended (and the other way round).
  const [listError, setListError] = useState<Notice | undefined>();
  const [streamError, setStreamError] = useState<Notice | undefined>();
  const rowsRef = useRef<EventRow[]>([]);
  const searchRef = useRef(search);
  const sequence = useRef(0);
  const reloadTimer = useRef<NodeJS.Timeout | undefined>(undefined);
  const setRows = (next: EventRow[]) => {
    rowsRef.current = next;
    setRowsState(next);
  };

  const load = useCallback(async () => {
    // Only the newest request's answer is shown (a slow first page must not overwrite a filtered one).
    const mine = ++sequence.current;
    setLoading(true);
    try {
      const query = { per_page: PAGE_SIZE, ...(searchRef.current ? { search: searchRef.current } : {}) };
      const page = await dataOf(connection.client.GET('/events', { params: { query } }));
      if (mine !== sequence.current) return;
      setRows(page.events);
      setTotal(page.total);
      setTotalExact(page.total_exact !== false);
      setListError(undefined);
    } catch (cause) {
      if (mine === sequence.current) setListError(errorNotice(cause, connection.baseUrl));
    } finally {
      if (mine === sequence.current) setLoading(false);
    }
  }, [connection]);

  const reload = useCallback(() => {
    clearTimeout(reloadTimer.current);
    reloadTimer.current = setTimeout(() => void load(), RELOAD_DEBOUNCE_MS);
  }, [load]);

  useEffect(() => {
    searchRef.current = search;
    void load();
  }, [search, load]);

  useEffect(() => {
    let opened: EventStream | undefined;
    try {
      opened = openStream({
        baseUrl: connection.baseUrl,
        headers: connection.headers,
        fetch: connection.fetch,
        onMessage(message) {
          const result = applyFeedMessage(rowsRef.current, message, searchRef.current !== '');
          if (result.rows !== rowsRef.current) setRows(result.rows);
          if (message.type === 'event.created' && !result.reload) setTotal((t) => t + 1);
          if (result.reload) reload();
        },
        onState(state) {
          setStream(state === 'open' ? 'live' : state === 'closed' ? 'offline' : state);
          if (state === 'open') setStreamError(undefined);
        },
      });
      opened.done.catch((cause: unknown) => {
        setStream('offline');
        setStreamError(errorNotice(cause, connection.baseUrl));
      });
    } catch {
      // No stream (an older relay, or none implemented): the list still shows, refreshed by actions.
      setStream('offline');
    }
    return () => {
      opened?.close();
      clearTimeout(reloadTimer.current);
    };
  }, [connection, openStream, reload]);

  const remove = useCallback((id: string) => {
    setRows(rowsRef.current.filter((r) => r.id !== id));
    setTotal((t) => Math.max(0, t - 1));
  }, []);

  const latest = useCallback(() => rowsRef.current, []);
  const error = listError ?? streamError;
  return { rows, total, totalExact, loading, stream, error, reload, remove, latest } satisfies EventsState;
}
