import http from 'node:http';
import { ERROR_CODES } from '@relay/core';
import { checkReadiness, metricsAccessAllowed, type Readiness } from '@relay/service-kit';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';

/** GET /metrics on the health port: the worker's registry, behind METRICS_TOKEN when it is set. */
export interface MetricsExposure {
  registry: Registry;
  token: string | undefined;
}

// The worker has no API; this tiny server exists for container health checks (`/health`, `/ready`)
// and Prometheus scrapes (`/metrics`).
export function createHealthServer(readiness: Readiness, metrics?: MetricsExposure): http.Server {
  return http.createServer((req, res) => {
    const reply = (status: number, body: unknown, type = 'application/json') => {
      res.writeHead(status, { 'content-type': type }).end(JSON.stringify(body));
    };
    if (req.url === '/health') return reply(200, { status: 'ok' });
    if (metrics && req.method === 'GET' && req.url === '/metrics') return serveMetrics(req, res, metrics, reply);
    if (req.url !== '/ready') return reply(404, { status: 'not_found' });
    void checkReadiness(readiness).then((report) => {
      reply(report.ready ? 200 : 503, {
        status: report.ready ? 'ready' : 'unavailable',
        shutting_down: report.shuttingDown,
        checks: report.checks,
      });
    });
  });
}

/**
 * Listens on WORKER_HEALTH_PORT. Workers scale by starting more of them, and on one host only the first gets
 * the port: a worker that finds it taken warns once and runs on without a health server (it still delivers),
 * instead of dying on an uncaught EADDRINUSE. Any other listen error is still fatal.
 */
export function listenHealthServer(server: http.Server, port: number, logger: Logger): http.Server {
  server.once('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EADDRINUSE') throw error;
    logger.warn(
      { port },
      `WORKER_HEALTH_PORT ${port} is in use (another worker on this host?): this worker runs without /health, ` +
        '/ready and /metrics; give each worker its own WORKER_HEALTH_PORT, or 0 to turn it off',
    );
  });
  return server.listen(port);
}

function serveMetrics(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  metrics: MetricsExposure,
  reply: (status: number, body: unknown, type?: string) => void,
): void {
  if (!metricsAccessAllowed(req.headers.authorization, metrics.token)) {
    res.setHeader('www-authenticate', 'Bearer realm="metrics"');
    // The same problem document the api answers.
    return reply(
      401,
      {
        type: 'urn:webhook-relay:problem:unauthenticated',
        title: ERROR_CODES.unauthenticated,
        status: 401,
        detail: 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>.',
        code: 'unauthenticated',
      },
      'application/problem+json',
    );
  }
  metrics.registry.metrics().then(
    (text) =>
      res.writeHead(200, { 'content-type': metrics.registry.contentType, 'cache-control': 'no-store' }).end(text),
    () => reply(500, { status: 'error' }),
  );
}
