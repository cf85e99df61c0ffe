import { dataOf } from '@relay/client';
import type { Connection } from '../context';
import { openEventStream, type EventStreamOptions } from '../stream/event-stream';
import type { EventStatus, FeedMessage } from '../stream/feed-message';
import { RecentKeys } from '../stream/recent-keys';
import { createForwarder, type ForwardResult } from './forwarder';

export interface ListenOptions {
  connection: Connection;
  forwardTo: string;
  source?: string;
  /** Forward when an event reaches this status, instead of when it is created. */
  status?: EventStatus;
  onForwarded(result: ForwardResult): void;
  /** Things the user should know on stderr: reconnections, a truncated replay. */
  onNote(text: string): void;
  /** Each time the stream (re)opens: the first is when forwarding really starts. */
  onOpen?(): void;
  backoff?: EventStreamOptions['backoff'];
}

/** The API's largest page: the events that could be replayed to a listener that just started. */
const RECENT_PAGE = 200;

/**
 * Events that already were what the listener waits for before it started. A resumption replays from a little
 * before its Last-Event-ID (the api's slack for out-of-order messages), which can reach back before the listener
 * began: those events must not be forwarded as if new. Only the newest matter, since the slack is seconds.
 */
async function alreadyThere(options: ListenOptions): Promise<string[]> {
  const query = {
    per_page: RECENT_PAGE,
    ...(options.source ? { source: options.source } : {}),
    ...(options.status ? { status: options.status } : {}),
  };
  const page = await dataOf(options.connection.client.GET('/events', { params: { query } }));
  return page.events.map((e) => e.id);
}

export interface ListenSession {
  /** Stops following and aborts a forward in flight; `done` then resolves. */
  stop(): void;
  /** Resolves once stopped; rejects when the stream ends on its own (401/403). */
  done: Promise<void>;
}

/** The event a message asks to forward, if any (before --source, which the created message alone can check). */
function candidate(message: FeedMessage, options: ListenOptions): string | undefined {
  if (message.type === 'event.created') {
    if (options.source && message.data.source !== options.source) return undefined;
    return !options.status || message.data.status === options.status ? message.data.id : undefined;
  }
  if (message.type === 'event.status' && options.status && message.data.status === options.status)
    return message.data.id;
  return undefined;
}

/**
 * Follows the live feed and forwards each new event to the local URL, one at a time and in the order the feed
 * tells of them. Each event is forwarded at most once: the stream's replays after a reconnection, and an event that
 * reaches --status again after a retry, are recognised by id.
 */
export async function startListening(options: ListenOptions): Promise<ListenSession> {
  const stopping = new AbortController();
  const forward = createForwarder({
    connection: options.connection,
    forwardTo: options.forwardTo,
    signal: stopping.signal,
    accept: options.source ? (source) => source === options.source : undefined,
  });
  const taken = new RecentKeys(20_000);
  for (const id of await alreadyThere(options)) taken.add(id);
  let queue = Promise.resolve();
  let failure: Error | undefined;
  let reconnecting = false;

  const enqueue = (id: string) => {
    if (!taken.add(id)) return;
    queue = queue.then(async () => {
      if (stopping.signal.aborted) return;
      try {
        const result = await forward(id);
        if (result) options.onForwarded(result);
      } catch (error) {
        // forward() reports its own failures as lines; what reaches here (stdout gone) ends the session.
        if (stopping.signal.aborted) return;
        failure ??= error instanceof Error ? error : new Error(String(error));
        stream.close();
      }
    });
  };

  const stream = openEventStream({
    baseUrl: options.connection.baseUrl,
    headers: options.connection.headers,
    fetch: options.connection.fetch,
    ...(options.backoff ? { backoff: options.backoff } : {}),
    onMessage(message) {
      if (message.type === 'replay.truncated') {
        options.onNote('More happened while disconnected than the relay replays: some events were not forwarded.');
        return;
      }
      const id = candidate(message, options);
      if (id) enqueue(id);
    },
    onState(state, detail) {
      if (state === 'reconnecting' && detail) {
        reconnecting = true;
        const seconds = (detail.delayMs / 1000).toFixed(1);
        options.onNote(`reconnecting… (${detail.reason}; attempt ${detail.attempt} in ${seconds}s)`);
      } else if (state === 'open') {
        if (reconnecting) options.onNote('reconnected');
        reconnecting = false;
        options.onOpen?.();
      }
    },
  });

  const done = stream.done.then(async () => {
    await queue;
    if (failure) throw failure;
  });
  return {
    stop() {
      stopping.abort();
      stream.close();
    },
    done,
  };
}
