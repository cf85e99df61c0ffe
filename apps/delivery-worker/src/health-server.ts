import http from 'node:http';
import { checkReadiness, type Readiness } from '@relay/service-kit';

// The worker has no API; this tiny server exists for container health checks (`/health`, `/ready`).
export function createHealthServer(readiness: Readiness): http.Server {
  return http.createServer((req, res) => {
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (req.url === '/health') return reply(200, { status: 'ok' });
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
