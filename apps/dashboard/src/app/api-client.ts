import { createRelayClient, type paths } from '@relay/client';

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

/**
 * A path of the API for what cannot go through fetch (the live feed's EventSource): the path itself, since the
 * dashboard is served by the relay, but checked against the typed client's paths.
 */
export const apiPath = <P extends keyof paths>(path: P): P => path;
