import express, { type Express, type RequestHandler } from 'express';
import type { AuditRepository, OrganizationRepository } from '@relay/db';
import type { Logger } from 'pino';
import { errorHandler, notFound } from './http/problem';
import { requestLogger } from './http/request-logger';
import { authenticate, type AuthenticateDeps } from './auth/authenticate';
import { csrfGuard } from './auth/csrf';
import type { LoginLimiter } from './auth/login-limiter';
import { sessionPrincipal } from './auth/sessions';
import { sessionRoutes } from './routes/session.routes';
import { apiKeyRoutes } from './routes/api-keys.routes';
import { auditRoutes } from './routes/audit.routes';
import { authRoutes } from './routes/auth.routes';
import { tokenRoutes } from './routes/tokens.routes';
import { userRoutes } from './routes/users.routes';
import { healthRoutes, type HealthOptions } from './routes/health.routes';
import { ingestRoutes, type IngestRouteOptions } from './routes/ingest.routes';

export interface AppDeps {
  logger: Logger;
  /** Express 'trust proxy'; false trusts no proxy. */
  trustProxy?: string | number | false;
  auth: AuthenticateDeps & { organizations: OrganizationRepository; audit: AuditRepository };
  sessions: { middleware: RequestHandler; limiter: LoginLimiter; secureCookie: boolean };
  health: HealthOptions;
  ingest: IngestRouteOptions;
}

export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.trustProxy ?? false);
  app.set('etag', false);
  app.use(requestLogger(deps.logger));
  app.use(healthRoutes(deps.health));
  // Credentials are resolved for the API only: public ingest never reads Authorization.
  app.use('/api', authenticate(deps.auth));
  app.use('/api', deps.sessions.middleware);
  app.use('/api', sessionPrincipal(deps.auth.users));
  app.use('/api', express.json({ limit: '100kb' }));
  app.use('/api', csrfGuard);
  app.use(sessionRoutes({ ...deps.auth, limiter: deps.sessions.limiter, secureCookie: deps.sessions.secureCookie }));
  app.use(authRoutes(deps.auth));
  app.use(tokenRoutes(deps.auth));
  app.use(apiKeyRoutes(deps.auth));
  app.use(userRoutes(deps.auth));
  app.use(auditRoutes(deps.auth));
  // Ingest is registered last: any POST no API route claimed is a webhook.
  app.use(ingestRoutes(deps.ingest));
  app.use(notFound);
  app.use(errorHandler(deps.logger));
  return app;
}
