// The TUI's pure parts: the row type, how live feed messages change the list, and how a row fits a width.
import type { AnswerOf } from '@relay/client';
import { ago } from '../commands/command-kit';
import type { FeedMessage } from '../stream/feed-message';

export type EventRow = AnswerOf<'/events', 'get'>['events'][number];

/** Rows kept in memory: a day of a busy relay is paged by the API; the screen shows the newest. */
export const MAX_ROWS = 500;

export interface FeedResult {
  rows: EventRow[];
  /** The list can no longer be trusted to match the filter or the server (filtered list, truncated replay). */
  reload: boolean;
}

const newRow = (e: Extract<FeedMessage, { type: 'event.created' }>['data']): EventRow => ({
  id: e.id,
  source: e.source,
  status: e.status,
  created_at: e.created_at,
  provider_id: null,
  target_url: null,
  attempt_count: 0,
  failure_reason: null,
  last_error: null,
  acknowledged: false,
  acknowledged_at: null,
  delivered_at: null,
  delivery_counts: { total: 0, queued: 0, delivered: 0, failed: 0, paused: 0 },
});

/**
 * One live message applied to the list (newest first). With a search filter a new event cannot be matched
 * here (the API searches payloads and headers), so it asks for a reload instead of guessing.
 */
export function applyFeedMessage(rows: EventRow[], message: FeedMessage, filtered: boolean): FeedResult {
  switch (message.type) {
    case 'event.created': {
      if (filtered) return { rows, reload: true };
      if (rows.some((r) => r.id === message.data.id)) return { rows, reload: false };
      return { rows: [newRow(message.data), ...rows].slice(0, MAX_ROWS), reload: false };
    }
    case 'event.status': {
      const { id, status, failure_reason, acknowledged } = message.data;
      const update = (r: EventRow): EventRow =>
        r.id === id
          ? {
              ...r,
              status,
              failure_reason,
              acknowledged,
              delivered_at: status === 'delivered' ? (r.delivered_at ?? new Date().toISOString()) : r.delivered_at,
            }
          : r;
      return { rows: rows.map(update), reload: false };
    }
    case 'attempt': {
      const { event_id, attempt_number, kind } = message.data;
      if (kind !== 'main') return { rows, reload: false };
      const update = (r: EventRow): EventRow =>
        r.id === event_id ? { ...r, attempt_count: Math.max(r.attempt_count, attempt_number) } : r;
      return { rows: rows.map(update), reload: false };
    }
    case 'event.deleted':
      return { rows: rows.filter((r) => r.id !== message.data.id), reload: false };
    case 'replay.truncated':
      return { rows, reload: true };
  }
}

/** The status as text (readable without colour); an acknowledged failure says so. */
export const statusLabel = (row: Pick<EventRow, 'status' | 'acknowledged'>) =>
  row.status === 'failed' && row.acknowledged ? 'failed/ack' : row.status;

const fit = (text: string, width: number) =>
  width <= 0 ? '' : text.length > width ? `${text.slice(0, Math.max(0, width - 1))}…` : text.padEnd(width);

export interface RowCells {
  status: string;
  rest: string;
}

// Marker 2, status 10, then " source id attempts(4) age(8)" with a space before each: 28 columns before the
// source and the id. The id (36) gives way first when narrow; the source takes up to 16 more; a wide terminal
// gets a last column with the failure reason.
const FIXED_COLUMNS = 28;
const MAX_SOURCE = 16;
export function rowLayout(width: number) {
  const id = Math.max(8, Math.min(36, width - FIXED_COLUMNS - 10));
  const source = Math.max(6, Math.min(MAX_SOURCE, width - FIXED_COLUMNS - id));
  const left = width - FIXED_COLUMNS - id - source;
  // The reason column needs room for a word; otherwise the source takes the spare columns.
  return left >= 9 ? { id, source, reason: left - 1 } : { id, source: source + left, reason: 0 };
}

const line = (width: number, cells: [source: string, id: string, attempts: string, age: string, reason: string]) => {
  const { id, source, reason } = rowLayout(width);
  const [src, ident, attempts, age, why] = cells;
  const tail = reason ? ` ${fit(why, reason)}` : '';
  return ` ${fit(src, source)} ${fit(ident, id)} ${attempts.padStart(4)} ${age.padStart(8)}${tail}`;
};

/** One row as two cells (the status is coloured apart); with the 2-column marker the line is `width` wide. */
export function rowCells(row: EventRow, width: number, now: number): RowCells {
  const cells = [row.source, row.id, String(row.attempt_count), ago(row.created_at, now), row.failure_reason ?? ''];
  return { status: fit(statusLabel(row), 10), rest: line(width, cells as Parameters<typeof line>[1]) };
}

export function headerCells(width: number): RowCells {
  return { status: fit('STATUS', 10), rest: line(width, ['SOURCE', 'ID', 'ATT', 'AGE', 'REASON']) };
}

/** The first row to show so that `selected` stays inside a window of `height` rows. */
export function windowStart(selected: number, previousStart: number, height: number): number {
  if (height <= 0) return 0;
  if (selected < previousStart) return selected;
  if (selected >= previousStart + height) return selected - height + 1;
  return previousStart;
}
