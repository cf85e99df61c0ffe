import { createMemoryHistory } from '@tanstack/react-router';
import { render } from '@testing-library/react';
import { vi } from 'vitest';
import { App } from '../src/app/app-providers';
import { createAppRouter } from '../src/app/router';
import type { Me } from '../src/app/session';

/** One fake API answer: a status and a JSON body (a problem document for 4xx). */
export interface FakeAnswer {
  status?: number;
  body?: unknown;
}
type Handler = (url: URL, init: RequestInit) => FakeAnswer | undefined;

export const admin: Me = {
  mechanism: 'session',
  kind: 'user',
  user: { id: 'u1', username: 'alice', email: 'alice@example.com', role: 'admin' },
  organization: { id: 'o1', slug: 'acme', name: 'Acme' },
  role: 'admin',
  scopes: ['events:read', 'webhooks:send', 'organization:manage', 'rules:read', 'rules:write'],
};
export const viewer: Me = {
  ...admin,
  user: { ...admin.user!, role: 'viewer' },
  role: 'viewer',
  scopes: ['events:read'],
};
export const anonymous: Me = { mechanism: 'none', kind: null, user: null, organization: null, role: null, scopes: [] };

/**
 * A fake `fetch` at the client boundary: routes are "METHOD /path" (query ignored) → answer or handler.
 * Unknown routes answer 404 problems; every call is recorded.
 */
export function fakeApi(routes: Record<string, FakeAnswer | Handler>) {
  const calls: { method: string; url: URL; body: unknown }[] = [];
  const fetchFake = vi.fn(async (input: string | URL | Request, init: RequestInit = {}) => {
    // openapi-fetch passes a Request; the plain wrapper a URL string and init.
    const request = input instanceof Request ? input : undefined;
    const url = input instanceof Request ? new URL(input.url) : new URL(input, 'http://localhost');
    const method = (request?.method ?? init.method ?? 'GET').toUpperCase();
    const text = request ? await request.text() : init.body;
    calls.push({ method, url, body: typeof text === 'string' && text ? JSON.parse(text) : undefined });
    const route = routes[`${method} ${url.pathname}`];
    const answer = (typeof route === 'function' ? route(url, init) : route) ?? {
      status: 404,
      body: { title: 'Not Found', status: 404, code: 'not_found' },
    };
    const status = answer.status ?? 200;
    return new Response(status === 204 ? null : JSON.stringify(answer.body ?? {}), {
      status,
      headers: { 'content-type': status >= 400 ? 'application/problem+json' : 'application/json' },
    });
  });
  vi.stubGlobal('fetch', fetchFake);
  return { calls };
}

/** Renders the whole app at `path` (a path under /app, e.g. "/app/events?status=failed"). */
export function renderApp(path: string) {
  const history = createMemoryHistory({ initialEntries: [path] });
  const router = createAppRouter({ history });
  const view = render(<App router={router} />);
  return { ...view, router, history };
}
