import { BULK_CAP } from '@relay/contracts';
import { createAuditService } from '../modules/audit/audit.service';
import { createCredentialService } from '../modules/credentials/credential.service';
import { createDomainService } from '../modules/domains/domain.service';
import { createDocsService } from '../modules/docs/docs.service';
import { createInboundVerifier } from '../modules/ingest/inbound-verification';
import { createIngestRuleLookup } from '../modules/ingest/ingest-rules';
import { createWebhookService } from '../modules/ingest/webhook.service';
import { createBootstrapService } from '../modules/platform/bootstrap.service';
import { createPlatformService } from '../modules/platform/platform.service';
import { createOffboardingService } from '../modules/platform/organization-offboarding.service';
import { createOperatorService } from '../modules/platform/operator.service';
import { createPasswordService } from '../modules/account/password.service';
import { createUserLifecycleService } from '../modules/account/user-lifecycle.service';
import { createProbeService } from '../modules/probes/probe.service';
import { createEventService } from '../modules/events/event.service';
import { createMcpService } from '../modules/mcp/mcp.service';
import { createMetricsService } from '../modules/metrics/metrics.service';
import type { ModuleContext } from './module-context';
import { createSessionService } from '../modules/sessions/session.service';
import { identityProviderFor as identityProviderLookup } from '../modules/idp/identity-provider';
import { loginOrganizationResolver } from '../modules/idp/login-organization';
import { createOrganizationIdpService } from '../modules/idp/organization-idp.service';
import { createNotificationSettingsService } from '../modules/notifications/notification-settings.service';
import { createIdpLoginService } from '../modules/idp/idp-login.service';
import { createOidcConfigurations } from '../modules/idp/oidc-configurations';
import { createHookService } from '../modules/rules/hook.service';
import { createDestinationService } from '../modules/destinations/destination.service';
import { createRuleService } from '../modules/rules/rule.service';
import { createRuleHealthService } from '../modules/rules/rule-health.service';
import { createRuleDryRunService } from '../modules/rules/rule-dry-run.service';
import { createTransformTestService } from '../modules/rules/transform-test.service';
import { createVerificationSecretService } from '../modules/rules/verification-secret.service';
import { createRuleOrderingService } from '../modules/rules/rule-ordering.service';
import { createSendService } from '../modules/send/send.service';
import { createSettingsService } from '../modules/settings/settings.service';
import { createConfigService } from '../modules/config/config.service';
import { createStatsService } from '../modules/stats/stats.service';
import { createUserService } from '../modules/users/user.service';

/** Every module's service, as operation handlers receive them. */
export function createServices(ctx: ModuleContext) {
  // The one source of identity-provider configurations (login, callback and /config/oauth).
  const identityProviderFor = identityProviderLookup(ctx.config, ctx.repositories.identityProviders);
  return {
    probes: createProbeService(ctx.readiness),
    metrics: createMetricsService({ metrics: ctx.metrics, token: ctx.config.METRICS_TOKEN }),
    docs: createDocsService({ openApiDocument: ctx.catalog.openApiDocument }),
    mcp: createMcpService(),
    operatorBootstrap: createBootstrapService({
      repositories: ctx.repositories,
      passwords: ctx.passwords,
      adminToken: ctx.config.PLATFORM_ADMIN_TOKEN,
      limiter: ctx.loginLimiter,
    }),
    platform: createPlatformService({
      repositories: ctx.repositories,
      passwords: ctx.passwords,
      hosts: ctx.hosts,
      quota: ctx.limits.quota,
      rateLimits: {
        ingest: ctx.config.INGEST_RATE_LIMIT,
        api: ctx.config.API_RATE_LIMIT,
        windowSeconds: ctx.config.RATE_LIMIT_WINDOW_SECONDS,
        retentionDays: ctx.config.RETENTION_DAYS,
      },
    }),
    offboarding: createOffboardingService({
      repositories: ctx.repositories,
      reads: ctx.reads,
      sensitiveHeaders: ctx.config.SENSITIVE_HEADERS,
    }),
    webhooks: createWebhookService({
      ingest: ctx.ingest,
      organizationOf: ctx.organizationOf,
      maxBodyBytes: ctx.config.INGEST_MAX_BODY_BYTES,
      maxPayloadDepth: ctx.config.MAX_PAYLOAD_DEPTH,
      defaultSource: ctx.config.DEFAULT_SOURCE,
      allowTargetOverride: ctx.config.ALLOW_PUBLIC_TARGET_OVERRIDE,
      targetPolicy: ctx.targetPolicy,
      reservedSegments: ctx.catalog.reservedSegments,
      inFlight: ctx.ingestInFlight,
      gate: ctx.limits.ingestGate,
      rules: createIngestRuleLookup({
        rules: ctx.repositories.rules,
        cacheMs: ctx.config.INGEST_HOST_CACHE_MS,
      }),
      now: ctx.now,
      tracing: { tracer: ctx.tracer, trustInbound: ctx.config.TRACE_TRUST_INBOUND },
      verify: createInboundVerifier({
        keys: ctx.config.SECRET_ENCRYPTION_KEYS,
        rules: ctx.repositories.rules,
        logger: ctx.logger,
      }),
    }),
    domains: createDomainService({
      repositories: ctx.repositories,
      canonicalHost: ctx.hosts.canonicalHost,
      verify: ctx.verifyDomain,
    }),
    sessions: createSessionService({
      repositories: ctx.repositories,
      passwords: ctx.passwords,
      limiter: ctx.loginLimiter,
      secureCookie: ctx.config.SESSION_COOKIE_SECURE,
      accessRules: ctx.catalog.accessRules,
    }),
    idpLogin: createIdpLoginService({
      repositories: ctx.repositories,
      identityProviderFor,
      configurations: createOidcConfigurations({ timeoutSeconds: 10, targetPolicy: ctx.targetPolicy }),
      organizationFor: loginOrganizationResolver({
        organizations: ctx.repositories.organizations,
        organizationOf: ctx.organizationOf,
      }),
      callbackRejected: (code) => ctx.metrics.idpCallbackRejected(code),
      logger: ctx.logger,
    }),
    organizationIdp: createOrganizationIdpService({
      repositories: ctx.repositories,
      config: ctx.config,
      targetPolicy: ctx.targetPolicy,
    }),
    notificationSettings: createNotificationSettingsService({
      repositories: ctx.repositories,
      targetPolicy: ctx.targetPolicy,
      secretKeys: ctx.config.SECRET_ENCRYPTION_KEYS,
    }),
    config: createConfigService({
      repositories: ctx.repositories,
      targetPolicy: ctx.targetPolicy,
      secretKeys: ctx.config.SECRET_ENCRYPTION_KEYS,
      transforms: ctx.transforms,
      ruleChanges: ctx.ruleChanges,
      publicBaseUrl: ctx.config.PUBLIC_BASE_URL,
    }),
    credentials: createCredentialService({ repositories: ctx.repositories }),
    users: createUserService({ repositories: ctx.repositories, passwords: ctx.passwords, quota: ctx.limits.quota }),
    passwords: createPasswordService({
      repositories: ctx.repositories,
      passwords: ctx.passwords,
      limiter: ctx.loginLimiter,
      publicBaseUrl: ctx.config.PUBLIC_BASE_URL,
    }),
    userLifecycle: createUserLifecycleService({ repositories: ctx.repositories }),
    operators: createOperatorService({
      repositories: ctx.repositories,
      passwords: ctx.passwords,
      limiter: ctx.loginLimiter,
    }),
    audit: createAuditService({ repositories: ctx.repositories }),
    rules: createRuleService({
      repositories: ctx.repositories,
      defaultSigning: ctx.config.DEFAULT_SIGNING,
      targetPolicy: ctx.targetPolicy,
      secretKeys: ctx.config.SECRET_ENCRYPTION_KEYS,
      transforms: ctx.transforms,
      pacingState: ctx.pacingState,
    }),
    ruleOrdering: createRuleOrderingService({ repositories: ctx.repositories }),
    verificationSecrets: createVerificationSecretService({
      repositories: ctx.repositories,
      defaultSigning: ctx.config.DEFAULT_SIGNING,
      secretKeys: ctx.config.SECRET_ENCRYPTION_KEYS,
    }),
    ruleHealth: createRuleHealthService({
      repositories: ctx.repositories,
      defaultSigning: ctx.config.DEFAULT_SIGNING,
      queue: ctx.queue,
      feed: ctx.feed,
      logger: ctx.logger,
    }),
    ruleDryRun: createRuleDryRunService({
      repositories: ctx.repositories,
      sensitiveHeaders: ctx.config.SENSITIVE_HEADERS,
    }),
    hooks: createHookService({ repositories: ctx.repositories, targetPolicy: ctx.targetPolicy }),
    destinations: createDestinationService({
      repositories: ctx.repositories,
      defaultSigning: ctx.config.DEFAULT_SIGNING,
      targetPolicy: ctx.targetPolicy,
      secretKeys: ctx.config.SECRET_ENCRYPTION_KEYS,
      queue: ctx.queue,
      ruleChanges: ctx.ruleChanges,
      feed: ctx.feed,
      transforms: ctx.transforms,
      pacingState: ctx.pacingState,
      logger: ctx.logger,
    }),
    transformTest: createTransformTestService({
      repositories: ctx.repositories,
      runner: ctx.transforms,
      sensitiveHeaders: ctx.config.SENSITIVE_HEADERS,
    }),
    send: createSendService({
      ingest: ctx.ingest,
      repositories: ctx.repositories,
      targetPolicy: ctx.targetPolicy,
      installDefaultTarget: ctx.config.DEFAULT_TARGET_URL,
      maxPayloadDepth: ctx.config.MAX_PAYLOAD_DEPTH,
    }),
    settings: createSettingsService({
      repositories: ctx.repositories,
      targetPolicy: ctx.targetPolicy,
      installDefaultTarget: ctx.config.DEFAULT_TARGET_URL,
      publicBaseUrl: ctx.config.PUBLIC_BASE_URL,
      identityProviderFor,
      hosts: ctx.hosts,
      organizationOf: ctx.organizationOf,
      reservedSegments: ctx.catalog.reservedSegments,
    }),
    events: createEventService({
      repositories: ctx.repositories,
      reads: ctx.reads,
      queue: ctx.queue,
      feed: ctx.feed,
      logger: ctx.logger,
      bulkCap: BULK_CAP,
      sensitiveHeaders: ctx.config.SENSITIVE_HEADERS,
    }),
    streams: ctx.streams,
    stats: createStatsService({ repositories: ctx.reads }),
  };
}

export type ApiServices = ReturnType<typeof createServices>;
