import type { Server } from 'node:http';
import net from 'node:net';
import { startPipeline, type Pipeline } from './harness';
import { listenApi, type ListeningApi } from './listen-api';

// The server's limits with raw sockets, with the time-outs shortened: slow clients are cut off on
// time, idle keep-alive connections are closed, and too many header fields are refused. "On time" is
// checked as the server's own settings (which the runtime took from the config) plus the behaviour with
// lower bounds only: how late a loaded machine closes a connection has no upper bound.
let pipeline: Pipeline;
let listening: ListeningApi;
let server: Server;
let port: number;

beforeAll(async () => {
  pipeline = await startPipeline({
    api: {
      HTTP_HEADERS_TIMEOUT_MS: '600',
      HTTP_REQUEST_TIMEOUT_MS: '1200',
      HTTP_KEEP_ALIVE_TIMEOUT_MS: '400',
      HTTP_CONNECTIONS_CHECK_INTERVAL_MS: '50',
      HTTP_MAX_HEADERS: '100',
      DEFAULT_TARGET_URL: 'https://example.com/hook',
    },
    worker: false,
  });
  listening = await listenApi(pipeline);
  ({ server, port } = listening);
});
afterAll(async () => {
  await listening.close();
  await pipeline.close();
});

interface Outcome {
  /** Milliseconds from connecting until the server closed the connection. */
  closedAfterMs: number;
  received: string;
  /** Whether the server closed the connection before the client had sent all it meant to. */
  cutOff: boolean;
}

/** Writes `first`, then `trickle` one byte every 100 ms, until the server closes the connection. */
function slowClient(first: string, trickle: string): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    let received = '';
    let sent = 0;
    let timer: NodeJS.Timeout | undefined;
    // The trickle starts once `first` is written, so its bytes always follow it.
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(first);
      timer = setInterval(() => {
        if (sent < trickle.length && !socket.destroyed) socket.write(trickle[sent++]!);
      }, 100);
    });
    socket.on('data', (chunk) => (received += chunk.toString()));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(timer);
      clearTimeout(limit);
      resolve({ closedAfterMs: Date.now() - started, received, cutOff: sent < trickle.length });
    });
    const limit = setTimeout(() => {
      clearInterval(timer);
      socket.destroy();
      reject(new Error(`not closed within 20 s; received ${received}`));
    }, 20_000);
  });
}

const request = (lines: string[], body = '') =>
  [...lines, `content-length: ${Buffer.byteLength(body)}`, '', body].join('\r\n');

describe('HTTP server limits', () => {
  it('cuts off a client that sends its headers too slowly, at HTTP_HEADERS_TIMEOUT_MS', async () => {
    const outcome = await slowClient('POST /slow HTTP/1.1\r\nhost: relay.test\r\n', 'x-slow: ' + 'a'.repeat(200));
    expect(outcome.received).toMatch(/^HTTP\/1\.1 408/);
    expect(outcome.cutOff).toBe(true);
    expect(outcome.closedAfterMs).toBeGreaterThanOrEqual(550);
    expect(server.headersTimeout).toBe(600);
  });

  it('cuts off a client that sends its body too slowly, at HTTP_REQUEST_TIMEOUT_MS', async () => {
    const head =
      'POST /slow HTTP/1.1\r\nhost: relay.test\r\ncontent-type: application/json\r\ncontent-length: 200\r\n\r\n';
    const outcome = await slowClient(head, `{"a":"${'b'.repeat(190)}"}`);
    expect(outcome.received).toMatch(/^HTTP\/1\.1 408/);
    expect(outcome.cutOff).toBe(true);
    expect(outcome.closedAfterMs).toBeGreaterThanOrEqual(1_150);
    expect(server.requestTimeout).toBe(1_200);
    expect(await pipeline.store.prisma.event.count({ where: { source: 'slow' } })).toBe(0);
  });

  it('closes an idle keep-alive connection after HTTP_KEEP_ALIVE_TIMEOUT_MS', async () => {
    const outcome = await slowClient(request(['GET /health HTTP/1.1', 'host: relay.test']), '');
    expect(outcome.received).toMatch(/^HTTP\/1\.1 200/);
    expect(outcome.closedAfterMs).toBeGreaterThanOrEqual(350);
    expect(server.keepAliveTimeout).toBe(400);
  });

  it('answers 431 too_many_headers to more than HTTP_MAX_HEADERS header fields, and takes 100', async () => {
    const send = async (count: number) => {
      const extra = Array.from({ length: count - 4 }, (_, i) => `x-extra-${i}: ${i}`);
      const text = request(
        ['POST /many HTTP/1.1', 'host: relay.test', 'content-type: application/json', 'connection: close', ...extra],
        '{}',
      );
      return slowClient(text, '');
    };
    const refused = await send(101);
    expect(refused.received).toMatch(/^HTTP\/1\.1 431/);
    expect(refused.received).toContain('"code":"too_many_headers"');
    expect((await send(1_000)).received).toMatch(/^HTTP\/1\.1 431/);
    expect((await send(100)).received).toMatch(/^HTTP\/1\.1 202/);
    expect(await pipeline.store.prisma.event.count({ where: { source: 'many' } })).toBe(1);
  });
});
