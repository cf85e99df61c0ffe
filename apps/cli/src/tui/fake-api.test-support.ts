// A small stand-in for the relay's HTTP API on a loopback port, for the TUI's component tests: the API is the
// UI's outside world, so the tests talk real HTTP through the typed client instead of mocking fetch.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRelayClient } from '@relay/client';
import type { Connection } from '../context';
import type { EventStream, EventStreamOptions } from '../stream/event-stream';
import type { EventDetail } from './tui-actions';
import type { EventRow } from './tui-model';

export const eventRow = (n: number, patch: Partial<EventRow> = {}): EventRow => ({
  id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  source: n % 2 ? 'github' : 'stripe',
  status: n % 3 === 0 ? 'failed' : 'delivered',
  provider_id: null,
  target_url: 'http://127.0.0.1:9/hook',
  attempt_count: 1,
  failure_reason: null,
  last_error: null,
  acknowledged: false,
  acknowledged_at: null,
  created_at: new Date(Date.now() - n * 60_000).toISOString(),
  delivered_at: null,
  delivery_counts: { total: 0, queued: 0, delivered: 0, failed: 0, paused: 0 },
  ...patch,
});

export interface FakeApi {
  connection: Connection;
  /** Every request, as "METHOD /path?query". */
  requests: string[];
  events: EventRow[];
  /** Answer this problem (status, code, detail) to the next write instead of acting. */
  failWrites?: { status: number; code: string; detail: string };
  /** Answer the list with this estimated total (total_exact: false), as the API does past 10,000 matches. */
  estimatedTotal?: number;
  /** An event's destination deliveries, by event id (none when absent). */
  deliveries: Record<string, EventDetail['deliveries']>;
  /** The names of a rule's destinations (GET /rules/{id}/destinations), by rule id; a 403 when absent. */
  destinations: Record<string, { id: string; name: string }[]>;
  close(): Promise<void>;
}

const send = (res: ServerResponse, status: number, body?: unknown, type = 'application/json') => {
  res.writeHead(status, body === undefined ? {} : { 'content-type': type });
  res.end(body === undefined ? undefined : JSON.stringify(body));
};

export async function startFakeApi(events: EventRow[]): Promise<FakeApi> {
  const api = { requests: [] as string[], events, deliveries: {}, destinations: {} } as FakeApi;
  const route = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    api.requests.push(`${req.method} ${url.pathname}${url.search}`);
    const one = /^\/events\/([^/]+)(\/attempts|\/retry|\/ack)?$/.exec(url.pathname);
    const event = one ? api.events.find((e) => e.id === one[1]) : undefined;
    if (req.method !== 'GET' && api.failWrites) {
      const { status, code, detail } = api.failWrites;
      return send(res, status, { title: 'Refused', status, code, detail }, 'application/problem+json');
    }
    if (url.pathname === '/api/auth/me')
      return send(res, 200, { mechanism: 'token', kind: 'user', organization: { id: 'o1', slug: 'acme' } });
    if (url.pathname === '/events') {
      const search = url.searchParams.get('search') ?? '';
      const matching = api.events.filter((e) => e.source.includes(search) || e.id.includes(search));
      const total = api.estimatedTotal ?? matching.length;
      return send(res, 200, {
        events: matching,
        total,
        total_exact: api.estimatedTotal === undefined,
        page: 1,
        per_page: 100,
        pages: Math.ceil(total / 100),
      });
    }
    if (url.pathname === '/stats')
      return send(res, 200, {
        from: '2026-01-01T00:00:00.000Z',
        to: '2026-01-02T00:00:00.000Z',
        bucket: '1h',
        bucket_seconds: 3600,
        total: 8,
        by_status: { queued: 1, delivered: 4, failed: 2, paused: 1 },
        needs_attention: 2,
        success_rate: 4 / 6,
        latency_ms: { p50: 12, p95: 80, p99: 95 },
        by_source: [{ source: 'github', total: 8, queued: 1, delivered: 4, failed: 2, paused: 1 }],
        series: [],
      });
    const rule = /^\/rules\/([^/]+)\/destinations$/.exec(url.pathname);
    if (rule) {
      const destinations = api.destinations[rule[1]!];
      if (!destinations) return send(res, 403, { title: 'Forbidden', status: 403, code: 'forbidden' });
      return send(res, 200, { destinations });
    }
    if (!one || !event) return send(res, 404, { title: 'Not found', status: 404, code: 'not_found' });
    if (req.method === 'DELETE') {
      api.events = api.events.filter((e) => e !== event);
      return send(res, 204);
    }
    if (one[2] === '/retry') return send(res, 202, { id: event.id, status: 'queued' });
    if (one[2] === '/ack') return send(res, 200, { ...event, acknowledged: true });
    if (one[2] === '/attempts')
      return send(res, 200, {
        attempts: [
          {
            id: 'a1',
            attempt_number: 1,
            kind: 'main',
            hook_id: null,
            destination_id: null,
            target_url: 'http://127.0.0.1:9/hook',
            response_status: 500,
            response_body: 'boom',
            error: null,
            duration_ms: 42,
            started_at: event.created_at,
            finished_at: event.created_at,
          },
        ],
      });
    return send(res, 200, {
      ...event,
      payload: { action: 'opened', repository: { full_name: 'octo/hello' } },
      headers: { 'content-type': 'application/json', 'x-github-event': 'push' },
      last_error: null,
      next_attempt_at: null,
      updated_at: event.created_at,
      deliveries: api.deliveries[event.id] ?? [],
    });
  };
  const server = createServer(route);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const headers = { authorization: 'Bearer ts_test' };
  api.connection = {
    baseUrl,
    headers,
    client: createRelayClient({ baseUrl, headers }),
    profileName: 'default',
    profile: undefined,
    fetch: globalThis.fetch,
  };
  api.close = () => new Promise((resolve) => server.close(() => resolve()));
  return api;
}

/** A live stream the test drives: it keeps the options the UI opened it with. */
export function fakeStream() {
  const control = { options: undefined as EventStreamOptions | undefined, closed: false };
  const open = (options: EventStreamOptions): EventStream => {
    control.options = options;
    return { lastEventId: undefined, close: () => (control.closed = true), done: new Promise(() => {}) };
  };
  return { control, open };
}
