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
import { docsRoutes } from './routes/docs.routes';
import { buildOpenApiDocument } from './openapi/openapi-document';
import { ingestRoutes, type IngestRouteOptions } from './routes/ingest.routes';
import { eventRoutes, type EventRouteDeps } from './routes/events.routes';
import { statsRoutes, type StatsRouteDeps } from './routes/stats.routes';
import { streamRoutes } from './routes/stream.routes';
import { bootstrapRoute, platformRoutes, type PlatformRouteDeps } from './routes/platform.routes';
import { domainRoutes } from './routes/domains.routes';
import type { DomainActions } from './domains/domain-actions';
import type { EventStreams } from './stream/event-stream';
import { ruleRoutes, type RuleRouteDeps } from './routes/rules.routes';
import { hookRoutes, type HookRouteDeps } from './routes/hooks.routes';
import { sendRoutes } from './routes/send.routes';
import { settingsRoutes, type SettingsDeps } from './routes/settings.routes';
import type { SendDeps } from './send/send-webhook';

export interface AppDeps {
  logger: Logger;
  /** Shown in the OpenAPI document. */
  version?: string;
  /** PUBLIC_BASE_URL: the API's public address, for the OpenAPI document and /config/endpoint. */
  publicBaseUrl?: string | undefined;
  /** Express 'trust proxy'; false trusts no proxy. */
  trustProxy?: string | number | false;
  auth: AuthenticateDeps & { organizations: OrganizationRepository; audit: AuditRepository };
  sessions: { middleware: RequestHandler; limiter: LoginLimiter; secureCookie: boolean };
  health: HealthOptions;
  ingest: IngestRouteOptions;
  events: EventRouteDeps;
  stats: StatsRouteDeps;
  streams: EventStreams;
  platform: PlatformRouteDeps;
  domains: DomainActions;
  rules: RuleRouteDeps & HookRouteDeps;
  send: SendDeps;
  settings: SettingsDeps;
}

export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.trustProxy ?? false);
  app.set('etag', false);
  app.use(requestLogger(deps.logger));
  app.use(healthRoutes(deps.health));
  app.use(
    docsRoutes({
      document: () => buildOpenApiDocument({ version: deps.version ?? '0.0.0', serverUrl: deps.publicBaseUrl }),
    }),
  );
  // Credentials are resolved for the API only: public ingest never reads Authorization. These first
  // path segments are reserved (RESERVED_PATH_SEGMENTS): no webhook source can use them.
  const apiPaths = ['/api', '/events', '/rules', '/stats', '/config'];
  // The operator bootstrap carries PLATFORM_ADMIN_TOKEN, not a relay credential: it comes before
  // credentials are resolved, like the other routes that need none.
  app.use(bootstrapRoute(deps.platform));
  app.use(apiPaths, authenticate(deps.auth));
  app.use(apiPaths, deps.sessions.middleware);
  app.use(apiPaths, sessionPrincipal(deps.auth.users, deps.auth.operators));
  // Room for /api/send, whose body carries a webhook payload of up to the ingest limit.
  app.use(apiPaths, express.json({ limit: deps.ingest.maxBodyBytes + 64 * 1024 }));
  app.use(apiPaths, csrfGuard);
  app.use(sessionRoutes({ ...deps.auth, limiter: deps.sessions.limiter, secureCookie: deps.sessions.secureCookie }));
  app.use(authRoutes(deps.auth));
  app.use(tokenRoutes(deps.auth));
  app.use(apiKeyRoutes(deps.auth));
  app.use(userRoutes(deps.auth));
  app.use(auditRoutes(deps.auth));
  app.use(platformRoutes(deps.platform));
  app.use(domainRoutes(deps.domains));
  app.use(streamRoutes(deps.streams));
  app.use(eventRoutes(deps.events));
  app.use(statsRoutes(deps.stats));
  app.use(ruleRoutes(deps.rules));
  app.use(hookRoutes(deps.rules));
  app.use(sendRoutes(deps.send));
  app.use(settingsRoutes(deps.settings));
  // Ingest is registered last: any POST no API route claimed is a webhook.
  app.use(ingestRoutes(deps.ingest));
  app.use(notFound);
  app.use(errorHandler(deps.logger));
  return app;
}
