import { Router } from 'express';
import { createEventActions } from './events/event-actions';
import type { ModuleContext } from './modules/module-context';
import { apiKeyRoutes } from './routes/api-keys.routes';
import { auditRoutes } from './routes/audit.routes';
import { authRoutes } from './routes/auth.routes';
import { eventRoutes } from './routes/events.routes';
import { hookRoutes } from './routes/hooks.routes';
import { platformRoutes } from './routes/platform.routes';
import { ruleRoutes } from './routes/rules.routes';
import { sendRoutes } from './routes/send.routes';
import { sessionRoutes } from './routes/session.routes';
import { settingsRoutes } from './routes/settings.routes';
import { statsRoutes } from './routes/stats.routes';
import { streamRoutes } from './routes/stream.routes';
import { tokenRoutes } from './routes/tokens.routes';
import { userRoutes } from './routes/users.routes';
import { BULK_CAP } from '@relay/contracts';

// TEMPORARY while features move into modules/: the routers not yet converted to operations.
export function legacyRoutes(ctx: ModuleContext): Router {
  const r = ctx.repositories;
  const auth = {
    users: r.users,
    credentials: r.credentials,
    operators: r.operators,
    organizations: r.organizations,
    audit: r.audit,
    passwords: ctx.passwords,
  };
  const platform = {
    platform: r.platform,
    operators: r.operators,
    audit: r.audit,
    passwords: ctx.passwords,
    hosts: ctx.hosts,
    adminToken: ctx.config.PLATFORM_ADMIN_TOKEN,
  };
  const rules = { providers: r.providers, hooks: r.hooks, audit: r.audit, targetPolicy: ctx.targetPolicy };
  const router = Router();
  router.use(sessionRoutes({ ...auth, limiter: ctx.loginLimiter, secureCookie: ctx.config.SESSION_COOKIE_SECURE }));
  router.use(authRoutes(auth));
  router.use(tokenRoutes(auth));
  router.use(apiKeyRoutes(auth));
  router.use(userRoutes(auth));
  router.use(auditRoutes(auth));
  router.use(platformRoutes(platform));
  router.use(streamRoutes(ctx.streams));
  router.use(
    eventRoutes({
      queries: r.eventQueries,
      actions: createEventActions({
        actions: r.eventActions,
        queue: ctx.queue,
        audit: r.audit,
        logger: ctx.logger,
        bulkCap: BULK_CAP,
        feed: ctx.feed,
      }),
    }),
  );
  router.use(statsRoutes({ stats: r.stats }));
  router.use(ruleRoutes(rules));
  router.use(hookRoutes(rules));
  router.use(
    sendRoutes({
      ingest: ctx.ingest,
      providers: r.providers,
      organizations: r.organizations,
      audit: r.audit,
      targetPolicy: ctx.targetPolicy,
      installDefaultTarget: ctx.config.DEFAULT_TARGET_URL,
    }),
  );
  router.use(
    settingsRoutes({
      organizations: r.organizations,
      audit: r.audit,
      targetPolicy: ctx.targetPolicy,
      installDefaultTarget: ctx.config.DEFAULT_TARGET_URL,
      publicBaseUrl: ctx.config.PUBLIC_BASE_URL,
      oidc: { issuer: ctx.config.OIDC_ISSUER_URL, clientId: ctx.config.OIDC_CLIENT_ID },
      hosts: ctx.hosts,
      domains: r.domains,
      organizationOf: ctx.organizationOf,
    }),
  );
  return router;
}
