import express, { type Express, type RequestHandler } from 'express';
import { authenticate } from './auth/authenticate';
import { csrfGuard } from './auth/csrf';
import { sessionPrincipal } from './auth/sessions';
import type { IdempotencyStore } from './http/idempotency-store';
import { mountOperations, operationHandler } from './http/mount-operations';
import type { AnyOperation } from './http/operation';
import { errorHandler, notFound } from './http/problem';
import { requestLogger } from './http/request-logger';
import { headerCountLimit, jsonDepthLimit } from './http/request-limits';
import {
  API_OPERATIONS,
  API_PATHS,
  BOOTSTRAP_OPERATIONS,
  DASHBOARD_OPERATIONS,
  DOCS_OPERATIONS,
  firstPathSegment,
  PROBE_OPERATIONS,
  RESERVED_PATH_SEGMENTS,
} from './composition/catalog';
import { dashboardAssets } from './modules/dashboard/dashboard-assets';
import { docsAssets } from './modules/docs/docs-assets';
import { INGEST_ROUTE } from './modules/ingest/ingest.operations';
import { instrumentIngest } from './modules/metrics/ingest-metrics';
import type { ModuleContext } from './composition/module-context';
import { QUEUE_VIEW_PATH } from './modules/queue-view/queue-view';
import type { ApiServices } from './composition/services';

export interface AppDeps {
  ctx: ModuleContext;
  services: ApiServices;
  sessionMiddleware: RequestHandler;
  /** Keeps the answers of operations called with an Idempotency-Key. */
  idempotency: IdempotencyStore;
  /** bull-board, read-only, for platform operators (modules/queue-view). */
  queueView: RequestHandler;
}

export function createApp({ ctx, services, sessionMiddleware, idempotency, queueView }: AppDeps): Express {
  const { config } = ctx;
  const r = ctx.repositories;
  const app = express();
  app.disable('x-powered-by');
  const trustProxy = config.TRUST_PROXY;
  app.set('trust proxy', trustProxy === undefined ? false : /^\d+$/.test(trustProxy) ? Number(trustProxy) : trustProxy);
  app.set('etag', false);
  const mountOptions = { validateResponses: config.API_VALIDATE_RESPONSES, idempotency };
  const mount = (operations: readonly AnyOperation<ApiServices>[]) =>
    mountOperations(operations, services, mountOptions);
  app.use(requestLogger(ctx.logger));
  app.use(headerCountLimit(config.HTTP_MAX_HEADERS));
  // A POST whose first path segment belongs to no route of the relay's can only be a webhook: it goes
  // straight to ingest instead of being matched against every API route first (which cost more CPU
  // per webhook than storing it: bench, docs/performance.md). The ingest service still refuses
  // reserved sources, whichever way a request arrives.
  const ingest = instrumentIngest(operationHandler(INGEST_ROUTE, services, mountOptions), ctx.metrics);
  app.use((req, res, next) => {
    if (req.method === 'POST' && !RESERVED_PATH_SEGMENTS.has(firstPathSegment(req.path))) ingest(req, res, next);
    else next();
  });
  app.use(mount(PROBE_OPERATIONS));
  // Swagger UI's files first: GET /docs only redirects to /docs/, which they serve.
  app.use(docsAssets());
  app.use(mount(DOCS_OPERATIONS));
  // The dashboard talks to the API with the session cookie like any browser client: its files need none.
  app.use(dashboardAssets({ dir: config.DASHBOARD_DIR }));
  app.use(mount(DASHBOARD_OPERATIONS));
  // The operator bootstrap carries PLATFORM_ADMIN_TOKEN, not a relay credential: it comes before
  // credentials are resolved, like the other routes that need none.
  app.use(mount(BOOTSTRAP_OPERATIONS));
  // The queue view is reached with an operator's session, resolved like the API's credentials.
  const credentialPaths = [...API_PATHS, QUEUE_VIEW_PATH];
  app.use(
    credentialPaths,
    authenticate({
      users: r.users,
      credentials: r.credentials,
      operators: r.operators,
      passwords: ctx.passwords,
      limiter: ctx.loginLimiter,
      audit: r.audit,
    }),
  );
  app.use(credentialPaths, sessionMiddleware);
  app.use(credentialPaths, sessionPrincipal(r.users, r.operators));
  // Per credential (or client IP), before any body is parsed.
  app.use(API_PATHS, ctx.limits.apiRateLimit);
  app.use(QUEUE_VIEW_PATH, queueView);
  // Room for /api/send, whose body carries a webhook payload of up to the ingest limit.
  // One level more than MAX_PAYLOAD_DEPTH: /api/send wraps the payload in its request object.
  app.use(
    API_PATHS,
    express.json({
      // Any JSON value parses; a body that is valid JSON but not an object (`null`, `3`) is then a
      // 400 validation_failed from the operation's schema, not invalid_json.
      strict: false,
      limit: config.INGEST_MAX_BODY_BYTES + 64 * 1024,
      verify: jsonDepthLimit(config.MAX_PAYLOAD_DEPTH + 1),
    }),
  );
  app.use(API_PATHS, csrfGuard);
  app.use(mount(API_OPERATIONS));
  // Ingest is registered last too: any other POST no API route claimed is a webhook (a reserved
  // source, refused as not_found).
  app.use(ingest);
  app.use(notFound);
  app.use(errorHandler(ctx.logger));
  return app;
}
