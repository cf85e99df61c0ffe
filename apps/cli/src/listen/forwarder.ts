import { dataOf, problemOf } from '@relay/client';
import type { Connection } from '../context';
import { describeError } from '../errors';
import { forwardHeaders } from './forward-headers';

/** What happened to one forwarded event: one line of `relay listen`. */
export interface ForwardResult {
  time: string;
  event_id: string;
  source: string | null;
  /** The local program's HTTP status; null when it could not be reached (see error). */
  status: number | null;
  error: string | null;
  /** How long the local request took (not the reads from the relay). */
  duration_ms: number;
}

export interface ForwarderOptions {
  connection: Connection;
  forwardTo: string;
  /** Aborts the request in flight when the user stops listening. */
  signal: AbortSignal;
  timeoutMs?: number;
  /** Checked once the event's source is known (a status message does not carry it). */
  accept?: (source: string) => boolean;
}

const errorText = (error: unknown) => {
  if (error instanceof Error && error.name === 'TimeoutError') return 'timed out';
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? describeError(error).message;
};

/** Reads an event's stored bytes and headers from the relay and POSTs them to the local URL. */
export function createForwarder(options: ForwarderOptions) {
  const { connection, forwardTo, signal } = options;
  const timeoutMs = options.timeoutMs ?? 30_000;

  async function read(id: string) {
    const detail = await dataOf(connection.client.GET('/events/{id}', { params: { path: { id } }, signal }));
    // Raw bytes, never the parsed payload: a receiver checking the sender's signature needs them exactly.
    const answer = await connection.fetch(`${connection.baseUrl}/events/${encodeURIComponent(id)}/body`, {
      headers: connection.headers,
      signal,
    });
    if (!answer.ok) throw await problemOf(answer);
    return { detail, body: Buffer.from(await answer.arrayBuffer()), contentType: answer.headers.get('content-type') };
  }

  /** undefined when the event is not for this listener (--source). */
  return async function forward(id: string): Promise<ForwardResult | undefined> {
    const time = new Date().toISOString();
    let event: Awaited<ReturnType<typeof read>>;
    try {
      event = await read(id);
    } catch (error) {
      if (signal.aborted) throw error;
      const reason = `cannot read the event from the relay: ${describeError(error, connection.baseUrl).message}`;
      return { time, event_id: id, source: null, status: null, error: reason, duration_ms: 0 };
    }
    if (options.accept && !options.accept(event.detail.source)) return undefined;
    const headers = forwardHeaders(event.detail.headers, { id, contentType: event.contentType });
    const started = performance.now();
    const base = { time, event_id: id, source: event.detail.source };
    try {
      const answer = await connection.fetch(forwardTo, {
        method: 'POST',
        headers,
        body: event.body,
        redirect: 'manual',
        signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
      });
      // Read the answer to the end so the connection can be reused for the next event.
      await answer.arrayBuffer().catch(() => undefined);
      const duration_ms = Math.round(performance.now() - started);
      return { ...base, status: answer.status, error: null, duration_ms };
    } catch (error) {
      if (signal.aborted) throw error;
      const duration_ms = Math.round(performance.now() - started);
      return { ...base, status: null, error: errorText(error), duration_ms };
    }
  };
}
