import { Router } from 'express';
import { dashboardHeaders } from './dashboard-headers';
import { createDashboardFiles } from './dashboard-files';

/**
 * The dashboard's files: every GET (and HEAD) under /app/, with its security headers. A router, not
 * operations, like Swagger UI's files; `GET /app` (an operation, so `app` is reserved as a source)
 * redirects here.
 */
export function dashboardAssets(options: { dir: string }): Router {
  const files = createDashboardFiles(options);
  const router = Router();
  router.get('/app/{*path}', dashboardHeaders, async (req, res) => {
    const { path = [] } = req.params as { path?: string[] };
    await files.serve(res, path);
  });
  return router;
}
