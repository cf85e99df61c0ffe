import { AppError, type FeedMessage, type OrgId } from '@relay/core';
import type { FeedReplayRepository } from '@relay/db';
import type { FeedSubscriber } from '@relay/queue';
import type { Response } from 'express';
import type { Logger } from 'pino';

export interface EventStreamDeps {
  feed: FeedSubscriber;
  replay: FeedReplayRepository;
  logger: Logger;
  heartbeatMs: number;
  /** Most messages replayed on resume; beyond it the client is told to reload. */
  replayLimit: number;
  /** Replay starts this long before Last-Event-ID: messages of other processes can arrive slightly out of order. */
  replaySlackMs?: number;
  /** How long to wait for Redis to confirm the subscription before answering 503. */
  subscribeTimeoutMs?: number;
  /** A client this far behind (bytes buffered) is cut off; it resumes with Last-Event-ID. */
  maxBufferedBytes?: number;
}

/** `promise`, or a rejection after `ms` (then `onLate` cleans up whatever the promise still yields). */
function withTimeout<T>(promise: Promise<T>, ms: number, onLate: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      onLate();
      reject(new Error(`no answer within ${ms} ms`));
    }, ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const frame = (m: FeedMessage) => `id: ${m.at}\nevent: ${m.type}\ndata: ${JSON.stringify(m.data)}\n\n`;

/** `Last-Event-ID` (or `?last_event_id`, for clients that cannot set headers): a ms timestamp. */
export function parseLastEventId(value: unknown): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string' || !/^\d{1,15}$/.test(value)) {
    throw new AppError('validation_failed', 'The request is not valid.', {
      errors: [{ field: 'Last-Event-ID', message: 'must be the id of a received message' }],
    });
  }
  return Number(value);
}

// Server-Sent Events for one organization: subscribe first (buffering), replay from the database
// when resuming, then stream live messages, with comment heartbeats so proxies keep the line open.
export function createEventStreams(deps: EventStreamDeps) {
  const open = new Set<Response>();
  const slack = deps.replaySlackMs ?? 2_000;
  const maxBuffered = deps.maxBufferedBytes ?? 1 << 20;
  const subscribeTimeoutMs = deps.subscribeTimeoutMs ?? 3_000;

  async function serve(res: Response, orgId: OrgId, lastEventId: number | undefined): Promise<void> {
    let buffer: FeedMessage[] | null = [];
    let closed = false;
    const send = (text: string) => {
      if (closed) return;
      res.write(text);
      if (res.writableLength > maxBuffered) res.destroy();
    };
    let unsubscribe: () => void;
    try {
      const subscribed = deps.feed.subscribe(orgId, (message) =>
        buffer ? buffer.push(message) : send(frame(message)),
      );
      unsubscribe = await withTimeout(
        subscribed,
        subscribeTimeoutMs,
        () =>
          void subscribed.then(
            (off) => off(),
            () => {},
          ),
      );
    } catch (err) {
      deps.logger.warn({ err }, 'live stream: cannot subscribe to the feed');
      throw new AppError('stream_unavailable');
    }
    if (res.destroyed) {
      unsubscribe();
      return;
    }
    open.add(res);
    const heartbeat = setInterval(() => send(`: heartbeat\n\n`), deps.heartbeatMs);
    res.on('close', () => {
      closed = true;
      clearInterval(heartbeat);
      unsubscribe();
      open.delete(res);
    });

    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
      connection: 'keep-alive',
    });
    send(`retry: 3000\n: connected\n\n`);
    if (lastEventId !== undefined) {
      try {
        const { messages, truncated } = await deps.replay.since(orgId, new Date(lastEventId - slack), deps.replayLimit);
        for (const message of messages) send(frame(message));
        if (truncated) send(`event: replay.truncated\ndata: ${JSON.stringify({ limit: deps.replayLimit })}\n\n`);
      } catch (err) {
        deps.logger.warn({ err }, 'live stream: replay failed');
        send(`event: replay.failed\ndata: {}\n\n`);
      }
    }
    const pending = buffer;
    buffer = null;
    for (const message of pending) send(frame(message));
  }

  return {
    serve,
    /** Open streams (for tests and metrics). */
    get size() {
      return open.size;
    },
    /** Ends every open stream (shutdown); clients reconnect elsewhere with Last-Event-ID. */
    closeAll() {
      for (const res of open) res.end();
    },
  };
}

export type EventStreams = ReturnType<typeof createEventStreams>;
