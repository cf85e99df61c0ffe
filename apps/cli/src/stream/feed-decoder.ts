import type { EventSourceMessage } from 'eventsource-parser';
import type { FeedMessage } from './feed-message';

const FEED_TYPES = new Set(['event.created', 'attempt', 'event.status', 'event.deleted']);

/**
 * The feed message of one SSE message, or undefined for what the CLI does not know (a newer api's message types,
 * unparseable data): a client older than its relay keeps working.
 */
export function decodeFeedMessage(message: EventSourceMessage): FeedMessage | undefined {
  const type = message.event;
  // replay.failed (the api could not read its replay) means the same to a client as replay.truncated: what
  // happened while it was away is not all here, so lists must be reloaded.
  if (type === 'replay.truncated' || type === 'replay.failed')
    return { type: 'replay.truncated', id: message.id, data: parseData(message.data) ?? {} };
  if (!type || !FEED_TYPES.has(type) || message.id === undefined) return undefined;
  const data = parseData(message.data);
  if (typeof data !== 'object' || data === null) return undefined;
  return { type, id: message.id, data } as FeedMessage;
}

function parseData(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * What makes a message the same message when a resumption replays it: its type, SSE id (a ms timestamp several
 * messages can share) and subject. undefined for messages never deduplicated (replay.truncated).
 */
export function dedupKey(message: FeedMessage): string | undefined {
  switch (message.type) {
    case 'event.created':
    case 'event.status':
    case 'event.deleted':
      return `${message.type}|${message.id}|${message.data.id}`;
    case 'attempt': {
      const a = message.data;
      return `attempt|${message.id}|${a.event_id}/${a.attempt_number}/${a.kind}/${a.hook_id ?? ''}`;
    }
    case 'replay.truncated':
      return undefined;
  }
}

/** The later of two SSE ids: they are ms timestamps, and a replay (which starts early) may repeat older ones. */
export function laterId(current: string | undefined, next: string | undefined): string | undefined {
  if (next === undefined) return current;
  if (current === undefined) return next;
  const [a, b] = [Number(current), Number(next)];
  if (Number.isFinite(a) && Number.isFinite(b)) return b >= a ? next : current;
  return next;
}
