import { statusStyle, type Colors } from '../../output/colors';
import type { FeedMessage } from '../../stream/feed-message';
import type { EventStatusName } from './events-filters';

export interface TailFilter {
  source?: string;
  status?: EventStatusName;
}

/** The event a message is about (none for `replay.truncated`). */
export function eventIdOf(message: FeedMessage): string | undefined {
  switch (message.type) {
    case 'event.created':
    case 'event.status':
    case 'event.deleted':
      return message.data.id;
    case 'attempt':
      return message.data.event_id;
    case 'replay.truncated':
      return undefined;
  }
}

/**
 * Decides which messages `relay events tail` prints. `--status` keeps the messages that carry a status (created,
 * status changes) with that status. `--source` keeps every message about an event of that source; a message carries
 * its event's source only when the event is created, so the source of an older event is looked up once (and
 * remembered); an event that cannot be found any more (deleted) is not shown.
 */
export function createTailFilter(filter: TailFilter, lookupSource: (eventId: string) => Promise<string | undefined>) {
  const sources = new Map<string, string | undefined>();
  const sourceOf = async (id: string) => {
    if (!sources.has(id)) sources.set(id, await lookupSource(id));
    return sources.get(id);
  };
  return async function accepts(message: FeedMessage): Promise<boolean> {
    if (message.type === 'replay.truncated') return true;
    if (message.type === 'event.created') sources.set(message.data.id, message.data.source);
    if (filter.status !== undefined) {
      if (message.type !== 'event.created' && message.type !== 'event.status') return false;
      if (message.data.status !== filter.status) return false;
    }
    if (filter.source !== undefined) {
      const id = eventIdOf(message)!;
      const source = message.type === 'event.created' ? message.data.source : await sourceOf(id);
      if (source !== filter.source) return false;
    }
    if (message.type === 'event.deleted') sources.delete(message.data.id);
    return true;
  };
}

const clock = (at: Date) => at.toTimeString().slice(0, 8);

/** One human line per message: time, type, event id, then what happened. */
export function tailLine(message: FeedMessage, colors: Colors, at: Date): string {
  const line = (id: string | undefined, ...rest: string[]) =>
    [colors.gray(clock(at)), message.type.padEnd(13), id ?? '', ...rest].join('  ');
  const status = (s: EventStatusName) => colors[statusStyle(s)](s);
  switch (message.type) {
    case 'event.created':
      return line(message.data.id, message.data.source, status(message.data.status));
    case 'event.status': {
      const d = message.data;
      const reason = d.failure_reason ? ` (${d.failure_reason})` : '';
      return line(d.id, `${status(d.status)}${reason}${d.acknowledged ? ' acknowledged' : ''}`);
    }
    case 'attempt': {
      const d = message.data;
      const ok = d.response_status !== null && d.response_status >= 200 && d.response_status < 300;
      const result = colors[ok ? 'green' : 'red'](d.response_status !== null ? String(d.response_status) : 'error');
      const error = d.error ? ` ${d.error}` : '';
      return line(d.event_id, `#${d.attempt_number} ${d.kind} ${result} ${d.duration_ms} ms${error}`);
    }
    case 'event.deleted':
      return line(message.data.id, 'deleted');
    case 'replay.truncated':
      return line(undefined, colors.yellow('missed messages while disconnected: run `relay events list` to catch up'));
  }
}
