import { accessTableOf } from '../auth/access-table';
import type { AnyOperation } from '../http/operation';
import { bootstrapOperations } from '../modules/platform/bootstrap.operations';
import { dashboardOperations } from '../modules/dashboard/dashboard.operations';
import { docsOperations } from '../modules/docs/docs.operations';
import { ingestOperations } from '../modules/ingest/ingest.operations';
import { mcpOperations } from '../modules/mcp/mcp.operations';
import { metricsOperations } from '../modules/metrics/metrics.operations';
import { platformOperations } from '../modules/platform/platform.operations';
import { organizationOffboardingOperations } from '../modules/platform/organization-offboarding.operations';
import { operatorOperations } from '../modules/platform/operator.operations';
import { accountOperations } from '../modules/account/account.operations';
import { probeOperations } from '../modules/probes/probe.operations';
import { domainOperations } from '../modules/domains/domain.operations';
import { auditOperations } from '../modules/audit/audit.operations';
import { credentialOperations } from '../modules/credentials/credential.operations';
import { sessionOperations } from '../modules/sessions/session.operations';
import { idpOperations } from '../modules/idp/idp.operations';
import { organizationIdpOperations } from '../modules/idp/organization-idp.operations';
import { notificationSettingsOperations } from '../modules/notifications/notification-settings.operations';
import { userOperations } from '../modules/users/user.operations';
import { hookOperations } from '../modules/rules/hook.operations';
import { destinationOperations } from '../modules/destinations/destination.operations';
import { ruleOperations } from '../modules/rules/rule.operations';
import { ruleHealthOperations } from '../modules/rules/rule-health.operations';
import { ruleDryRunOperations } from '../modules/rules/rule-dry-run.operations';
import { transformTestOperations } from '../modules/rules/transform-test.operations';
import { ruleVerificationOperations } from '../modules/rules/rule-verification.operations';
import { ruleOrderingOperations } from '../modules/rules/rule-ordering.operations';
import { sendOperations } from '../modules/send/send.operations';
import { settingsOperations } from '../modules/settings/settings.operations';
import { configOperations } from '../modules/config/config.operations';
import { eventOperations } from '../modules/events/event.operations';
import { statsOperations } from '../modules/stats/stats.operations';
import { streamOperations } from '../modules/stream/stream.operations';
import type { ApiServices } from './services';

type Operations = readonly AnyOperation<ApiServices>[];

// app.ts mounts these lists in this order: the public probes, the API description and the operator
// bootstrap before credentials are resolved, then the API, then ingest (one catch-all) last.
export const PROBE_OPERATIONS: Operations = [...probeOperations, ...metricsOperations];
export const DOCS_OPERATIONS: Operations = docsOperations;
/** `GET /` and `GET /app`; the dashboard's files under /app/ are served beside them (dashboard-assets.ts). */
export const DASHBOARD_OPERATIONS: Operations = dashboardOperations;
export const BOOTSTRAP_OPERATIONS: Operations = bootstrapOperations;

// The operations behind credential resolution, in mounting order: Express matches in order, so
// fixed paths come before parameterised ones.
export const API_OPERATIONS: Operations = [
  ...platformOperations,
  ...organizationOffboardingOperations,
  ...operatorOperations,
  ...domainOperations,
  ...sessionOperations,
  ...idpOperations,
  ...organizationIdpOperations,
  ...notificationSettingsOperations,
  ...credentialOperations,
  ...userOperations,
  ...accountOperations,
  ...auditOperations,
  ...streamOperations,
  ...eventOperations,
  ...statsOperations,
  ...ruleOperations,
  ...ruleVerificationOperations,
  ...ruleOrderingOperations,
  ...ruleHealthOperations,
  ...ruleDryRunOperations,
  ...transformTestOperations,
  ...hookOperations,
  ...destinationOperations,
  ...sendOperations,
  ...settingsOperations,
  ...configOperations,
  ...mcpOperations,
];

/** Documented here; served by the one catch-all route app.ts mounts last (INGEST_ROUTE). */
export const INGEST_OPERATIONS: Operations = ingestOperations;

/** The first segment of a request path, lower-cased (routes match case-insensitively). */
export const firstPathSegment = (path: string) => (path.split('/')[1] ?? '').toLowerCase();

/** First path segments of the API: credentials are resolved for these paths only, never for ingest. */
export const API_PATHS = [...new Set(API_OPERATIONS.map((op) => `/${firstPathSegment(op.path)}`))];

/** Segments served by routers rather than operations: the queue view (/admin/queues) and /metrics. */
const ROUTER_SEGMENTS = ['admin', 'metrics'];

/** First path segments that belong to the relay itself: ingest refuses them as webhook sources. */
export const RESERVED_PATH_SEGMENTS: ReadonlySet<string> = new Set([
  ...[...PROBE_OPERATIONS, ...DOCS_OPERATIONS, ...DASHBOARD_OPERATIONS, ...BOOTSTRAP_OPERATIONS, ...API_OPERATIONS]
    .map((op) => firstPathSegment(op.path))
    .filter((segment) => segment !== ''),
  ...ROUTER_SEGMENTS,
]);

/** Every operation of the API: the OpenAPI document and the authorization table are built from it. */
export const ALL_OPERATIONS: Operations = [
  ...PROBE_OPERATIONS,
  ...DOCS_OPERATIONS,
  ...DASHBOARD_OPERATIONS,
  ...BOOTSTRAP_OPERATIONS,
  ...API_OPERATIONS,
  ...INGEST_OPERATIONS,
];

/**
 * The authorization table: every guarded operation (`METHOD /path`) and the least role and API-key
 * scope it needs. docs/authorization.md is generated from the same declarations (`pnpm docs:authorization`).
 */
export const ACCESS_TABLE = accessTableOf(ALL_OPERATIONS);
