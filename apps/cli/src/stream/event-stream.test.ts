import { ProblemError } from '@relay/client';
import { afterEach, describe, expect, it } from 'vitest';
import { frame, startSseServer, type SseTestServer } from '../../test/sse-test-server';
import { WAIT_LIMIT_MS } from '../../test/wait-limit';
import { openEventStream, type EventStream, type EventStreamOptions } from './event-stream';
import type { FeedMessage } from './feed-message';

const created = (id: string, eventId: string) =>
  frame('event.created', id, { id: eventId, source: 'github', status: 'queued', created_at: '2025-01-01T00:00:00Z' });
const status = (id: string, eventId: string, s = 'delivered') =>
  frame('event.status', id, { id: eventId, status: s, failure_reason: null, acknowledged: false });

const until = async (check: () => boolean, what: string, timeoutMs = WAIT_LIMIT_MS) => {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

let server: SseTestServer | undefined;
let stream: EventStream | undefined;
afterEach(async () => {
  stream?.close();
  await stream?.done.catch(() => {});
  await server?.close();
  stream = server = undefined;
});

function follow(extra: Partial<EventStreamOptions> = {}) {
  const messages: FeedMessage[] = [];
  const states: { state: string; detail?: { attempt: number; delayMs: number; reason: string } }[] = [];
  stream = openEventStream({
    baseUrl: `${server!.url}/`,
    headers: { authorization: 'Bearer ts_test' },
    fetch: globalThis.fetch,
    onMessage: (m) => messages.push(m),
    onState: (state, detail) => states.push({ state, ...(detail ? { detail } : {}) }),
    backoff: { initialMs: 20, maxMs: 200 },
    ...extra,
  });
  return { messages, states, stream };
}

describe('openEventStream', () => {
  it('sends the credentials, parses every message type (split across writes) and skips heartbeats', async () => {
    server = await startSseServer();
    const { messages, states } = follow();
    const c = await server.nth(1);
    expect(c.headers.authorization).toBe('Bearer ts_test');
    expect(c.headers.accept).toBe('text/event-stream');
    expect(c.headers['last-event-id']).toBeUndefined();
    const attempt = {
      event_id: 'e1',
      attempt_number: 1,
      kind: 'main',
      hook_id: null,
      target_url: 'http://t',
      response_status: 200,
      error: null,
      duration_ms: 3,
      finished_at: '2025-01-01T00:00:01Z',
    };
    const text =
      created('100', 'e1') +
      ': heartbeat\n\n' +
      frame('attempt', '101', attempt) +
      status('102', 'e1') +
      frame('event.deleted', '103', { id: 'e1' }) +
      frame('something.new', '104', { x: 1 }) +
      'event: replay.truncated\ndata: {"limit":2}\n\n';
    // Byte by byte in places: a frame cut anywhere, even inside a multi-byte character, still parses.
    c.send(text.slice(0, 7));
    c.send(text.slice(7, 40));
    c.send(text.slice(40));
    await until(() => messages.length === 5, 'five messages');
    expect(messages.map((m) => [m.type, m.id])).toEqual([
      ['event.created', '100'],
      ['attempt', '101'],
      ['event.status', '102'],
      ['event.deleted', '103'],
      ['replay.truncated', undefined],
    ]);
    expect(messages[1]!.data).toEqual(attempt);
    expect(stream!.lastEventId).toBe('104');
    expect(states.map((s) => s.state)).toEqual(['connecting', 'open']);
  });

  it('reconnects after a drop with the last id, and hands on replayed messages only once', async () => {
    server = await startSseServer();
    const { messages, states } = follow();
    const first = await server.nth(1);
    first.send(created('200', 'a') + created('200', 'b') + status('201', 'a'));
    await until(() => messages.length === 3, 'three messages');
    first.drop();
    const second = await server.nth(2);
    expect(second.headers['last-event-id']).toBe('201');
    // The relay replays from a little before the id: what was already seen comes again, then the new.
    second.send(created('200', 'a') + created('200', 'b') + status('201', 'a') + status('202', 'b', 'failed'));
    await until(() => messages.length === 4, 'the new message');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(messages.map((m) => `${m.type}:${m.id}:${(m.data as { id: string }).id}`)).toEqual([
      'event.created:200:a',
      'event.created:200:b',
      'event.status:201:a',
      'event.status:202:b',
    ]);
    const reconnecting = states.find((s) => s.state === 'reconnecting')!;
    expect(reconnecting.detail).toMatchObject({ attempt: 1 });
    expect(reconnecting.detail!.delayMs).toBeGreaterThanOrEqual(10);
    expect(reconnecting.detail!.delayMs).toBeLessThanOrEqual(20);
    expect(reconnecting.detail!.reason).toMatch(/^connection lost \(.+\)$/);
    expect(states.map((s) => s.state)).toEqual(['connecting', 'open', 'reconnecting', 'open']);
    expect(stream!.lastEventId).toBe('202');
  });

  it('keeps the latest id when a replay repeats older ones', async () => {
    server = await startSseServer();
    const { messages } = follow({ lastEventId: '500' });
    const c = await server.nth(1);
    expect(c.headers['last-event-id']).toBe('500');
    c.send(created('510', 'x') + created('490', 'y'));
    await until(() => messages.length === 2, 'two messages');
    expect(stream!.lastEventId).toBe('510');
  });

  it('backs off exponentially on 5xx and refused connections, and starts over once a stream opened', async () => {
    let answer = 503;
    server = await startSseServer((c) => {
      if (answer === 200) c.open();
      else {
        c.res.writeHead(answer, { 'content-type': 'application/problem+json' });
        c.res.end('{"title":"Unavailable","status":503,"code":"stream_unavailable"}');
      }
    });
    const { states } = follow({ random: () => 1 });
    await server.nth(3);
    answer = 200;
    const opened = await server.nth(4);
    await until(() => states.at(-1)?.state === 'open', 'the stream to open');
    opened.drop();
    await server.nth(5);
    const delays = states.filter((s) => s.state === 'reconnecting').map((s) => [s.detail!.attempt, s.detail!.delayMs]);
    expect(delays).toEqual([
      [1, 20],
      [2, 40],
      [3, 80],
      [1, 20],
    ]);
    expect(states.find((s) => s.state === 'reconnecting')!.detail!.reason).toBe('HTTP 503');
  });

  it('ends on 401 or 403: done rejects with the problem, and nothing reconnects', async () => {
    server = await startSseServer((c) => {
      c.res.writeHead(401, { 'content-type': 'application/problem+json' });
      c.res.end('{"title":"Unauthorized","status":401,"code":"unauthenticated","detail":"Sign in."}');
    });
    const { states } = follow();
    const error = await stream!.done.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ProblemError);
    expect(error).toMatchObject({ status: 401, code: 'unauthenticated' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(server.connections).toHaveLength(1);
    expect(states.at(-1)!.state).toBe('closed');
  });

  it('close() aborts the open connection and resolves done; close() during a backoff wait too', async () => {
    server = await startSseServer();
    const { states } = follow();
    const c = await server.nth(1);
    stream!.close();
    await stream!.done;
    await c.closed;
    expect(states.at(-1)!.state).toBe('closed');

    await server.close();
    server = await startSseServer((conn) => conn.drop());
    // A backoff of an hour: done resolving at all (within the test's time-out) shows close() cut the wait short,
    // with no bound on how fast a loaded machine gets there.
    const waiting = follow({ backoff: { initialMs: 3_600_000, maxMs: 3_600_000 } });
    await until(() => waiting.states.some((s) => s.state === 'reconnecting'), 'a backoff wait');
    waiting.stream.close();
    await waiting.stream.done;
    expect(waiting.states.at(-1)!.state).toBe('closed');
  });

  it('treats a silent connection (no heartbeat) as dropped', async () => {
    server = await startSseServer();
    const { states } = follow({ idleTimeoutMs: 150 });
    await server.nth(2);
    expect(states.find((s) => s.state === 'reconnecting')!.detail!.reason).toMatch(/no heartbeat for 150 ms/);
  });

  it("ends with the consumer's error instead of reconnecting around it", async () => {
    server = await startSseServer();
    follow({
      onMessage: () => {
        throw new Error('consumer bug');
      },
    });
    (await server.nth(1)).send(created('1', 'a'));
    await expect(stream!.done).rejects.toThrow('consumer bug');
    expect(server.connections).toHaveLength(1);
  });
});
