import express, { type Express, type RequestHandler } from 'express';
import { authenticate } from './auth/authenticate';
import { csrfGuard } from './auth/csrf';
import { sessionPrincipal } from './auth/sessions';
import { mountOperations } from './http/mount-operations';
import { errorHandler, notFound } from './http/problem';
import { requestLogger } from './http/request-logger';
import { legacyRoutes } from './legacy-routes';
import { ALL_OPERATIONS } from './modules/catalog';
import type { ModuleContext } from './modules/module-context';
import type { ApiServices } from './modules/services';
import { buildOpenApiDocument } from './openapi/openapi-document';
import { bootstrapRoute } from './routes/platform.routes';
import { docsRoutes } from './routes/docs.routes';
import { healthRoutes } from './routes/health.routes';
import { ingestRoutes } from './routes/ingest.routes';

export interface AppDeps {
  ctx: ModuleContext;
  services: ApiServices;
  sessionMiddleware: RequestHandler;
}

/** First path segments of the API: credentials are resolved for these only, never for ingest. */
export const API_PATHS = ['/api', '/events', '/rules', '/stats', '/config'];

export function createApp({ ctx, services, sessionMiddleware }: AppDeps): Express {
  const { config } = ctx;
  const r = ctx.repositories;
  const app = express();
  app.disable('x-powered-by');
  const trustProxy = config.TRUST_PROXY;
  app.set('trust proxy', trustProxy === undefined ? false : /^\d+$/.test(trustProxy) ? Number(trustProxy) : trustProxy);
  app.set('etag', false);
  app.use(requestLogger(ctx.logger));
  app.use(healthRoutes(ctx.readiness));
  app.use(
    docsRoutes({
      document: () => buildOpenApiDocument({ version: ctx.version, serverUrl: config.PUBLIC_BASE_URL }),
    }),
  );
  // The operator bootstrap carries PLATFORM_ADMIN_TOKEN, not a relay credential: it comes before
  // credentials are resolved, like the other routes that need none.
  app.use(
    bootstrapRoute({
      platform: r.platform,
      operators: r.operators,
      audit: r.audit,
      passwords: ctx.passwords,
      hosts: ctx.hosts,
      adminToken: config.PLATFORM_ADMIN_TOKEN,
    }),
  );
  app.use(
    API_PATHS,
    authenticate({
      users: r.users,
      credentials: r.credentials,
      operators: r.operators,
      passwords: ctx.passwords,
    }),
  );
  app.use(API_PATHS, sessionMiddleware);
  app.use(API_PATHS, sessionPrincipal(r.users, r.operators));
  // Room for /api/send, whose body carries a webhook payload of up to the ingest limit.
  app.use(API_PATHS, express.json({ limit: config.INGEST_MAX_BODY_BYTES + 64 * 1024 }));
  app.use(API_PATHS, csrfGuard);
  app.use(mountOperations(ALL_OPERATIONS, services, { validateResponses: config.API_VALIDATE_RESPONSES }));
  app.use(legacyRoutes(ctx));
  // Ingest is registered last: any POST no API route claimed is a webhook.
  app.use(
    ingestRoutes({
      organizationOf: ctx.organizationOf,
      ingest: ctx.ingest,
      maxBodyBytes: config.INGEST_MAX_BODY_BYTES,
      defaultSource: config.DEFAULT_SOURCE,
      allowTargetOverride: config.ALLOW_PUBLIC_TARGET_OVERRIDE,
      targetPolicy: ctx.targetPolicy,
    }),
  );
  app.use(notFound);
  app.use(errorHandler(ctx.logger));
  return app;
}
