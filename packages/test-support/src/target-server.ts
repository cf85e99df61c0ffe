import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  receivedAt: number;
}

export type TargetReply =
  number | { status: number; headers?: Record<string, string>; body?: string; delayMs?: number } | 'hang';

export interface TargetServer {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  /** Replies in order, one per request; the last one repeats. Default 200. */
  replyWith(...replies: TargetReply[]): void;
  waitForRequests(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

// A local stand-in for the outside world: records every request and answers as told.
export async function startTargetServer(): Promise<TargetServer> {
  const requests: ReceivedRequest[] = [];
  let replies: TargetReply[] = [200];
  const waiters: Array<() => void> = [];
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
        receivedAt: Date.now(),
      });
      const reply = replies.length > 1 ? replies.shift()! : replies[0]!;
      waiters.splice(0).forEach((wake) => wake());
      if (reply === 'hang') return void hanging.add(res);
      const { status, headers, body, delayMs } =
        typeof reply === 'number' ? { status: reply, headers: {}, body: 'ok', delayMs: 0 } : reply;
      setTimeout(() => res.writeHead(status, headers).end(body ?? ''), delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    replyWith: (...next) => {
      replies = next.length ? next : [200];
    },
    async waitForRequests(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (requests.length < count) {
        if (Date.now() > deadline)
          throw new Error(`target got ${requests.length} of ${count} requests in ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
      return requests.slice(0, count);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
