import { createRelayClient, problemOf } from '@relay/client';

// The one way the dashboard talks to the relay: same origin (`baseUrl: ''`), the session cookie included.
// Every non-2xx answer becomes an ApiError (the client's ProblemError) carrying the RFC 9457 problem document.
export { ProblemError as ApiError } from '@relay/client';

// The page's own origin: the same as `''` in a browser, and a Request needs an absolute URL outside one (jsdom).
const origin = globalThis.location?.origin ?? '';

/**
 * The typed client (paths and answers from the api's OpenAPI document); use with `dataOf(client.GET(...))`.
 * `fetch` is looked up per call so tests can stub the global.
 */
export const client = createRelayClient({ baseUrl: origin, fetch: (request) => globalThis.fetch(request) });

type Query = Record<string, string | number | boolean | undefined>;

const baseUrl = '';

function urlOf(path: string, query?: Query): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) if (value !== undefined) params.set(key, String(value));
  const search = params.toString();
  return `${baseUrl}${path}${search ? `?${search}` : ''}`;
}

async function send(method: string, path: string, options: { query?: Query; body?: unknown } = {}): Promise<Response> {
  const res = await fetch(urlOf(path, options.query), {
    method,
    credentials: 'include',
    headers: options.body === undefined ? { accept: 'application/json' } : { 'content-type': 'application/json' },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  if (!res.ok) throw await problemOf(res);
  return res;
}

async function json<T>(res: Response): Promise<T> {
  return res.status === 204 ? (undefined as T) : ((await res.json()) as T);
}

export const api = {
  get: async <T>(path: string, query?: Query) => json<T>(await send('GET', path, { query })),
  /** The raw stored bytes of a body (e.g. `GET /events/{id}/body`), as text. */
  text: async (path: string) => (await send('GET', path)).text(),
  post: async <T>(path: string, body?: unknown) => json<T>(await send('POST', path, { body })),
  put: async <T>(path: string, body?: unknown) => json<T>(await send('PUT', path, { body })),
  patch: async <T>(path: string, body?: unknown) => json<T>(await send('PATCH', path, { body })),
  delete: async <T = void>(path: string) => json<T>(await send('DELETE', path)),
  url: urlOf,
};
