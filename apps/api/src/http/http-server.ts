import { createServer, type RequestListener, type Server } from 'node:http';

export interface HttpServerLimits {
  /** Time for a client to send the request headers (HTTP_HEADERS_TIMEOUT_MS). */
  headersTimeoutMs: number;
  /** Time for a client to send the whole request, body included (HTTP_REQUEST_TIMEOUT_MS). */
  requestTimeoutMs: number;
  /** How long an idle keep-alive connection stays open (HTTP_KEEP_ALIVE_TIMEOUT_MS). */
  keepAliveTimeoutMs: number;
  /** How often the two time-outs above are checked (HTTP_CONNECTIONS_CHECK_INTERVAL_MS). */
  connectionsCheckIntervalMs: number;
}

// Node's defaults cut a slow-header client after about a minute and a slow body after five, and
// check only every 30 s: a few slow clients could hold connections for minutes. Ingest and the API
// share this server, so the same limits hold for both. The header count is limited in the app
// (http/request-limits.ts), because Node's maxHeadersCount drops extra headers silently.
export function createHttpServer(handler: RequestListener, limits: HttpServerLimits): Server {
  const server = createServer(
    {
      requestTimeout: limits.requestTimeoutMs,
      // Node refuses a headers time-out longer than the request time-out.
      headersTimeout: Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs),
      connectionsCheckingInterval: limits.connectionsCheckIntervalMs,
    },
    handler,
  );
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  return server;
}
