import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { waitFor } from '@relay/test-support';

export interface SseMessage {
  id: string | undefined;
  event: string;
  data: unknown;
}

export interface SseClient {
  status: number;
  headers: http.IncomingHttpHeaders;
  messages: SseMessage[];
  comments: string[];
  /** The server ended the response. */
  ended: boolean;
  /** Resolves with the first message matching, waiting up to timeoutMs. */
  next(predicate: (m: SseMessage) => boolean, timeoutMs?: number): Promise<SseMessage>;
  close(): void;
}

/** Serves an Express app on a loopback port, as a real process would. */
export async function listen(app: Express): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

// A minimal EventSource over node:http: parses `id`, `event`, `data` fields and `:` comments.
export function openStream(url: string, headers: Record<string, string>): Promise<SseClient> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      const client: SseClient = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        messages: [],
        comments: [],
        ended: false,
        next: (predicate, timeoutMs = 10_000) =>
          waitFor(async () => client.messages.find(predicate), timeoutMs, 'a stream message'),
        close: () => req.destroy(),
      };
      let pending = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        pending += chunk;
        let end: number;
        while ((end = pending.indexOf('\n\n')) >= 0) {
          const block = pending.slice(0, end);
          pending = pending.slice(end + 2);
          const fields: Record<string, string> = {};
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) client.comments.push(line.slice(1).trim());
            else if (line.includes(':'))
              fields[line.slice(0, line.indexOf(':'))] = line.slice(line.indexOf(':') + 1).trimStart();
          }
          if (fields.data !== undefined)
            client.messages.push({ id: fields.id, event: fields.event ?? 'message', data: JSON.parse(fields.data) });
        }
      });
      res.on('end', () => {
        client.ended = true;
      });
      // Hanging up a stream aborts the response; the test reads `ended`, not the error.
      res.on('error', () => {});
      resolve(client);
    });
    req.on('error', reject);
  });
}
