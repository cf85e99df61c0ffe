// Follows GET /events/stream over fetch: parses the Server-Sent Events, reconnects with backoff after a drop
// (resuming with Last-Event-ID) and hands each message on once.
import { problemOf } from '@relay/client';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { backoffDelay, DEFAULT_BACKOFF } from './backoff';
import { decodeFeedMessage, dedupKey, laterId } from './feed-decoder';
import type { FeedMessage, StreamState } from './feed-message';
import { RecentKeys } from './recent-keys';

export interface EventStreamOptions {
  baseUrl: string;
  /** Authentication headers (Connection.headers). */
  headers: Record<string, string>;
  fetch: typeof fetch;
  /** Resume after this SSE id (sent as Last-Event-ID on the first connection too). */
  lastEventId?: string;
  /** Each message once (the stream deduplicates replays on id + type + subject). */
  onMessage(message: FeedMessage): void;
  /** Connection state changes; `reconnecting` carries the attempt, the delay before it and why. */
  onState?(state: StreamState, detail?: { attempt: number; delayMs: number; reason: string }): void;
  /** Reconnect backoff (exponential with jitter): first delay and cap. Defaults 500 ms and 15 s. */
  backoff?: { initialMs: number; maxMs: number };
  /**
   * A connection silent this long (no message, not even a heartbeat comment) counts as dropped: a relay that
   * vanished without closing its sockets would otherwise hold the stream open forever. Default 60 s.
   */
  idleTimeoutMs?: number;
  /** The jitter's random source (tests pin it). */
  random?: () => number;
}

export interface EventStream {
  /** The id of the last message received (what a reconnection resumes after). */
  readonly lastEventId: string | undefined;
  /** Stops following: no reconnection; `done` resolves. */
  close(): void;
  /** Resolves when closed. A 401/403 answer ends the stream too and rejects with the ProblemError. */
  readonly done: Promise<void>;
}

/** Answers worth another try: the relay restarting, overloaded or behind a proxy that lost it. */
const RETRYABLE = (status: number) => status >= 500 || status === 408 || status === 429;

/** Why a connection failed, for people ("cannot connect (ECONNREFUSED)"), with the code for searching. */
const reasonOf = (what: string, error: unknown): string => {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const detail = cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
  return `${what} (${detail})`;
};

/** Why one connection ended, when it may be retried; fatal answers and consumer errors are thrown instead. */
interface Drop {
  opened: boolean;
  reason: string;
}

export function openEventStream(options: EventStreamOptions): EventStream {
  const url = `${options.baseUrl.replace(/\/+$/, '')}/events/stream`;
  const backoff = options.backoff ?? DEFAULT_BACKOFF;
  const idleTimeoutMs = options.idleTimeoutMs ?? 60_000;
  const seen = new RecentKeys();
  let lastEventId = options.lastEventId;
  let closed = false;
  let current: AbortController | undefined;
  let wake: (() => void) | undefined;

  const deliver = (message: EventSourceMessage) => {
    lastEventId = laterId(lastEventId, message.id);
    const decoded = decodeFeedMessage(message);
    if (!decoded) return;
    const key = dedupKey(decoded);
    if (key !== undefined && !seen.add(key)) return;
    options.onMessage(decoded);
  };

  async function follow(): Promise<Drop> {
    const abort = new AbortController();
    current = abort;
    const headers: Record<string, string> = { ...options.headers, accept: 'text/event-stream' };
    if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
    let response: Response;
    try {
      response = await options.fetch(url, { headers, signal: abort.signal });
    } catch (error) {
      return { opened: false, reason: reasonOf('cannot connect', error) };
    }
    if (!response.ok) {
      if (!RETRYABLE(response.status)) throw await problemOf(response);
      await response.body?.cancel().catch(() => {});
      return { opened: false, reason: `HTTP ${response.status}` };
    }
    const type = response.headers.get('content-type') ?? '';
    if (!type.startsWith('text/event-stream') || !response.body) {
      await response.body?.cancel().catch(() => {});
      throw new Error(`${url} answered ${type || 'no content type'}, not an event stream`);
    }
    if (closed) {
      await response.body.cancel().catch(() => {});
      return { opened: true, reason: 'closed' };
    }
    options.onState?.('open');
    // A consumer's exception is a bug, not a network drop: it ends the stream (done rejects) instead of looping.
    let consumerError: { error: unknown } | undefined;
    const parser = createParser({
      onEvent(message) {
        if (consumerError || closed) return;
        try {
          deliver(message);
        } catch (error) {
          consumerError = { error };
        }
      },
    });
    let idle = false;
    let timer: NodeJS.Timeout | undefined;
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        idle = true;
        abort.abort();
      }, idleTimeoutMs);
    };
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    arm();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return { opened: true, reason: 'the relay ended the stream' };
        arm();
        parser.feed(decoder.decode(value, { stream: true }));
        if (consumerError) throw consumerError.error;
      }
    } catch (error) {
      if (consumerError) throw consumerError.error;
      return {
        opened: true,
        reason: idle ? `no heartbeat for ${idleTimeoutMs} ms` : reasonOf('connection lost', error),
      };
    } finally {
      clearTimeout(timer);
      abort.abort();
    }
  }

  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  async function run(): Promise<void> {
    options.onState?.('connecting');
    let attempt = 0;
    try {
      while (!closed) {
        const drop = await follow();
        if (closed) break;
        // A stream that opened resets the backoff: the next drop starts again from the first delay.
        attempt = drop.opened ? 1 : attempt + 1;
        const delayMs = backoffDelay(attempt, backoff, options.random);
        options.onState?.('reconnecting', { attempt, delayMs, reason: drop.reason });
        await pause(delayMs);
      }
    } finally {
      closed = true;
      options.onState?.('closed');
    }
  }

  const done = run();
  // Nobody may be awaiting `done` (a consumer that only calls close()): no unhandled rejection then.
  done.catch(() => {});
  return {
    get lastEventId() {
      return lastEventId;
    },
    close() {
      if (closed) return;
      closed = true;
      current?.abort();
      wake?.();
    },
    done,
  };
}
