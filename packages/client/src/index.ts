// The relay's typed REST client, shared by the dashboard, the CLI, the TUI and the MCP server. It
// runs in browsers and in Node alike: nothing here may import `node:` modules or a UI framework.
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { paths } from './schema';

export type { components, operations, paths } from './schema';
export { dataOf, problemOf, ProblemError, type ProblemDocument } from './problem';
export type { AnswerOf } from './answer-of';
export { OPERATION_ACCESS } from './operation-access';
export {
  accessOf,
  type AccessRole,
  type ApiKeyScope,
  type MemberAccess,
  type MemberOperation,
  type OperationKey,
} from './access-of';
export { DELIVERY_STATUSES, EVENT_STATUSES } from './event-values';
export { DEDUP_PRESETS, HMAC_ALGORITHMS, SIGNATURE_ENCODINGS, VERIFICATION_PRESETS } from './rule-option-values';
export { RATE_LIMIT_PERIODS, TRANSFORM_PACING_LIMITS } from './pacing-values';

export interface RelayClientOptions {
  /** The relay's origin, e.g. `https://relay.example.com`; `''` in a page the relay serves itself. */
  baseUrl: string;
  /** Another fetch (tests, a proxy agent); the global one by default. */
  fetch?: ClientOptions['fetch'];
  /** Sent with every call, e.g. `{ authorization: 'Bearer ts_…' }` outside the browser. */
  headers?: ClientOptions['headers'];
}

export type RelayClient = Client<paths>;

/**
 * A client whose paths, parameters, bodies and answers are typed from the api's OpenAPI document.
 * Calls answer `{ data, error, response }`; `dataOf` turns an error into a thrown ProblemError.
 * The browser sends the session cookie (`credentials: 'include'`); Node clients send headers.
 */
export function createRelayClient(options: RelayClientOptions): RelayClient {
  return createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    credentials: 'include',
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.headers ? { headers: options.headers } : {}),
  });
}
