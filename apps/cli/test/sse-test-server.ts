// A scripted SSE server on a loopback port for the stream's unit tests: each connection is handed to the test,
// which writes frames, drops it or answers an error, over real sockets.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WAIT_LIMIT_MS } from './wait-limit';

export interface SseConnection {
  headers: http.IncomingHttpHeaders;
  res: http.ServerResponse;
  /** Starts the event stream (200, text/event-stream). */
  open(): void;
  send(text: string): void;
  /** Destroys the socket mid-stream, as a crashing relay does. */
  drop(): void;
  closed: Promise<void>;
}

export interface SseTestServer {
  url: string;
  connections: SseConnection[];
  /** The n-th connection (1-based), waiting for it to arrive. */
  nth(n: number, timeoutMs?: number): Promise<SseConnection>;
  close(): Promise<void>;
}

export const frame = (type: string, id: string | undefined, data: unknown) =>
  `${id === undefined ? '' : `id: ${id}\n`}event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;

export async function startSseServer(onConnection: (c: SseConnection) => void = (c) => c.open()) {
  const connections: SseConnection[] = [];
  const server = http.createServer((req, res) => {
    const connection: SseConnection = {
      headers: req.headers,
      res,
      open: () => {
        res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
        res.write(': connected\n\n');
      },
      send: (text) => res.write(text),
      drop: () => res.socket?.destroy(),
      closed: new Promise((resolve) => res.on('close', () => resolve())),
    };
    connections.push(connection);
    onConnection(connection);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const result: SseTestServer = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections,
    async nth(n, timeoutMs = WAIT_LIMIT_MS) {
      const until = Date.now() + timeoutMs;
      while (connections.length < n) {
        if (Date.now() > until) throw new Error(`connection ${n} did not arrive (${connections.length} so far)`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return connections[n - 1]!;
    },
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
  return result;
}
