import http from 'node:http';

export interface WorkerHealth {
  checks: Record<string, () => Promise<void>>;
  isShuttingDown: () => boolean;
}

// The worker has no API; this tiny server exists for container health checks (`/health`, `/ready`).
export function createHealthServer(health: WorkerHealth): http.Server {
  return http.createServer((req, res) => {
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (req.url === '/health') return reply(200, { status: 'ok' });
    if (req.url !== '/ready') return reply(404, { status: 'not_found' });
    void Promise.all(
      Object.entries(health.checks).map(([name, check]) =>
        check().then(
          () => [name, 'ok'] as const,
          (err: Error) => [name, `unavailable: ${err.message}`] as const,
        ),
      ),
    ).then((entries) => {
      const ok = !health.isShuttingDown() && entries.every(([, state]) => state === 'ok');
      reply(ok ? 200 : 503, {
        status: ok ? 'ready' : 'unavailable',
        shutting_down: health.isShuttingDown(),
        checks: Object.fromEntries(entries),
      });
    });
  });
}
