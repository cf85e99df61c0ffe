import path from 'node:path';
import {
  flag,
  integer,
  isValidSource,
  LOG_LEVELS,
  optionalText,
  MAX_QUEUE_SHARDS,
  parseSettings,
  redisSettingFields,
  redisTargetsOf,
  secretKeysSetting,
  sensitiveHeadersSetting,
  text,
  tracingFields,
} from '@relay/core';
import { z } from 'zod';
import { issuerAllowed } from './modules/idp/issuer-url';

// apps/dashboard/dist of this checkout: `../package.json` is apps/api's manifest from src/config.ts (tests) and from
// dist/main.mjs alike (the bundle's `require` is createRequire(import.meta.url)), whatever the working directory.
const DEFAULT_DASHBOARD_DIR = path.resolve(path.dirname(require.resolve('../package.json')), '../dashboard/dist');

const fields = z.object({
  DATABASE_URL: text('postgresql://postgres@127.0.0.1:5432/test'),
  // REDIS_URL, REDIS_CLUSTER_NODES, REDIS_SENTINELS… and the roles' own URLs (docs/operations.md).
  ...redisSettingFields,
  PORT: integer(3000, 0, 65_535),
  HOST: text('0.0.0.0'),
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  QUEUE_PREFIX: text('relay'),
  // Queue shards (docs/operations.md "Queue shards"): the delivery and hook queues split into this many BullMQ
  // queues, each under its own hash tag; the same value in the api and every worker.
  REDIS_QUEUE_SHARDS: integer(1, 1, MAX_QUEUE_SHARDS),
  // Unset: http://localhost:${PORT} (see `schema` below), so a relay moved to another port advertises that one.
  PUBLIC_BASE_URL: optionalText(),
  DEFAULT_TARGET_URL: optionalText(),
  // The worker signs with it; the api only says whether it is set (a rule's `signing: "default"`), so the value is
  // dropped below and never kept in the api's memory. Set it the same on both.
  DEFAULT_SIGNING_SECRET: optionalText(),
  // Identity-provider login (OIDC) for the default organization: GET /api/auth/idp and its callback. The issuer
  // must be https, except on a loopback address (a local provider, tests).
  OIDC_ISSUER_URL: optionalText().refine((url) => url === undefined || issuerAllowed(url), {
    message: 'must be an https:// URL (http:// only on a loopback address such as 127.0.0.1 or localhost)',
  }),
  OIDC_CLIENT_ID: optionalText(),
  // Unset: a public client (PKCE only, no client authentication).
  OIDC_CLIENT_SECRET: optionalText(),
  // Unset: ${PUBLIC_BASE_URL}/api/auth/callback/idp (see `schema` below).
  OIDC_REDIRECT_URL: optionalText(),
  OIDC_SCOPES: text('openid email profile'),
  // Who gets a user at first login: nobody (`off`), any verified e-mail, or verified e-mails of OIDC_ALLOWED_DOMAINS.
  OIDC_PROVISIONING: z.enum(['off', 'verified_email', 'domains']).default('off'),
  OIDC_ALLOWED_DOMAINS: optionalText(),
  // A claim (e.g. `groups`) whose value containing one of OIDC_ADMIN_VALUES makes an admin, else a viewer.
  OIDC_ROLE_CLAIM: optionalText(),
  OIDC_ADMIN_VALUES: optionalText(),
  OIDC_BUTTON_LABEL: text('Sign in with your identity provider'),
  ALLOW_PUBLIC_TARGET_OVERRIDE: flag(false),
  INGEST_MAX_BODY_BYTES: integer(1_048_576, 1, 100 * 1_048_576),
  // A valid source, or every webhook posted to `/` (the advertised ingest URL) would be refused.
  DEFAULT_SOURCE: text('default').refine(isValidSource, {
    message: 'must be a valid source: 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit',
  }),
  INGEST_BATCH_MAX: integer(100, 1, 1_000),
  // 0: a batch closes as soon as a flush slot is free (the store's speed sets the batch size).
  INGEST_BATCH_WAIT_MS: integer(0, 0, 1_000),
  INGEST_FLUSH_CONCURRENCY: integer(4, 1, 100),
  // Webhooks one process stores at once; past it, 503 ingest_overloaded at once (0: no bound).
  INGEST_MAX_IN_FLIGHT: integer(1_000, 0, 1_000_000),
  // Payload bytes per group-commit batch (a larger payload goes alone): bounds the memory of a flush.
  INGEST_BATCH_MAX_BYTES: integer(1_048_576, 65_536, 100 * 1_048_576),
  // Deepest nesting of objects and arrays in a payload (ingest and /api/send). At most 1,000: the
  // event view re-serialises payloads, and far deeper ones would overflow the stack there.
  MAX_PAYLOAD_DEPTH: integer(128, 1, 1_000),
  // Credential headers masked in every read and never matched by a search: names added to the built-in list.
  SENSITIVE_HEADERS: sensitiveHeadersSetting(),
  // The worker's retention, read here only to show it (the platform console's limits): set it the same on both.
  RETENTION_DAYS: integer(0, 0, 36_500),
  // HTTP server limits (ingest and API share the server): slow or oversized requests are cut off.
  HTTP_HEADERS_TIMEOUT_MS: integer(15_000, 1, 600_000),
  HTTP_REQUEST_TIMEOUT_MS: integer(30_000, 1, 3_600_000),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: integer(5_000, 1, 600_000),
  HTTP_CONNECTIONS_CHECK_INTERVAL_MS: integer(1_000, 10, 60_000),
  HTTP_MAX_HEADERS: integer(100, 10, 1_000),
  TARGET_ALLOW_PRIVATE: flag(false),
  TARGET_ALLOWLIST: optionalText(),
  // Ports targets may use (comma-separated ports and ranges); unset: 80,443,1024-65535.
  TARGET_ALLOWED_PORTS: optionalText(),
  // Keys sealing stored secrets (AES-256-GCM): `kid:base64key,...`, the first seals, all open. Shared with the
  // worker. Unset: a signing secret cannot be stored (422 secrets_not_configured).
  SECRET_ENCRYPTION_KEYS: secretKeysSetting(),
  DATABASE_POOL_SIZE: integer(20, 1, 500),
  // A streaming replica of DATABASE_URL for history reads (event lists, search, details, stats, exports), with up to
  // DATABASE_POOL_SIZE connections of its own. Unset: every read goes to DATABASE_URL.
  DATABASE_READ_URL: optionalText(),
  // A replica further behind than this (or unreachable) is left alone: reads go to the primary until it catches up.
  DATABASE_READ_MAX_LAG_SECONDS: integer(10, 1, 86_400),
  SHUTDOWN_TIMEOUT_MS: integer(25_000, 0),
  // argon2id cost; OWASP's minimum by default. Lower only in tests.
  PASSWORD_HASH_MEMORY_KIB: integer(19_456, 1_024, 1_048_576),
  PASSWORD_HASH_TIME_COST: integer(2, 1, 20),
  // The first admin of the default organization, created at start while it has no admin.
  INITIAL_ADMIN_USERNAME: optionalText(),
  INITIAL_ADMIN_PASSWORD: optionalText(),
  INITIAL_ADMIN_EMAIL: text('admin@localhost'),
  // Sessions: cookie-signing secret (all api processes must share it), lifetime, and whether the
  // relay is served over TLS (then the cookie is Secure and named __Host-relay_session).
  SESSION_SECRET: optionalText(),
  SESSION_TTL_SECONDS: integer(28_800, 60, 2_592_000),
  // Unset: true when PUBLIC_BASE_URL is https (see `schema` below).
  SESSION_COOKIE_SECURE: z
    .enum(['true', 'false', '1', '0', ''])
    .optional()
    .transform((value) => (value === undefined || value === '' ? undefined : value === 'true' || value === '1')),
  // Failed logins allowed per username + IP, per username, and per IP, within the window (Redis, shared).
  LOGIN_MAX_FAILURES_PER_USER: integer(5, 1, 1_000),
  LOGIN_MAX_FAILURES_PER_ACCOUNT: integer(20, 1, 100_000),
  LOGIN_MAX_FAILURES_PER_IP: integer(50, 1, 100_000),
  LOGIN_WINDOW_SECONDS: integer(900, 1, 86_400),
  // Proxies whose X-Forwarded-For/-Proto are believed (Express 'trust proxy': 'loopback', a hop
  // count, or comma-separated CIDRs). Unset: none — client IPs and https come from the socket.
  TRUST_PROXY: optionalText(),
  // Hosted organizations: the bootstrap token of the first platform operator (unset: bootstrap disabled),
  // the host whose subdomains are organizations' ingest hosts, and the DNS servers used to verify domains.
  // At least 32 characters: it guards operator creation and is guessed at network speed otherwise.
  PLATFORM_ADMIN_TOKEN: optionalText().refine((token) => token === undefined || token.length >= 32, {
    message: 'must be at least 32 characters (for example `openssl rand -hex 32`); a short token can be guessed',
  }),
  INGEST_CANONICAL_HOST: optionalText(),
  DNS_SERVERS: optionalText(),
  // How long ingest remembers which organization a host belongs to (suspensions and deleted domains
  // take effect within it).
  INGEST_HOST_CACHE_MS: integer(5_000, 0, 300_000),
  // Live stream (GET /events/stream): comment heartbeat interval, and most messages replayed on resume.
  STREAM_HEARTBEAT_MS: integer(15_000, 100, 300_000),
  STREAM_REPLAY_LIMIT: integer(1_000, 1, 100_000),
  // Rate limits (Redis, shared by every api process), per window of RATE_LIMIT_WINDOW_SECONDS: webhooks per
  // organization (0/unset: off unless the organization has its own) and API requests per credential (0: off).
  INGEST_RATE_LIMIT: integer(0, 0, 100_000_000),
  API_RATE_LIMIT: integer(600, 0, 100_000_000),
  RATE_LIMIT_WINDOW_SECONDS: integer(60, 1, 86_400),
  // How long an Idempotency-Key's first answer is replayed (creates, sends, retries, bulk actions).
  IDEMPOTENCY_TTL_SECONDS: integer(86_400, 60, 604_800),
  // Longest wait for Redis on a command that sign-in depends on (sessions, login limits, Idempotency-Key): while
  // Redis is away the request answers 503 after this instead of waiting for Redis to come back.
  REDIS_COMMAND_TIMEOUT_MS: integer(2_000, 50, 60_000),
  // The dashboard's built files (index.html, assets/), served under /app/; relative to the working directory.
  DASHBOARD_DIR: text(DEFAULT_DASHBOARD_DIR),
  // GET /metrics (Prometheus): open while unset, else `Authorization: Bearer <METRICS_TOKEN>` is required.
  METRICS_TOKEN: optionalText(),
  // Adds an `organization` label to ingest metrics: one series per organization, so off by default.
  METRICS_ORGANIZATION_LABELS: flag(false),
  // The transform sandbox of POST /rules/{id}/transform-test and the dry compile at save (docs/transformations.md):
  // wall time and WebAssembly memory of one call, and sandbox threads at once (more calls wait their turn). The
  // worker reads the same names for deliveries.
  TRANSFORM_TIMEOUT_MS: integer(1_000, 10, 60_000),
  TRANSFORM_MEMORY_MB: integer(64, 8, 4_096),
  TRANSFORM_CONCURRENCY: integer(2, 1, 64),
  // Traces (docs/observability.md): the standard OTEL_* variables; unset endpoint, nothing is loaded.
  ...tracingFields,
  // An inbound `traceparent` on ingest (sent by anyone: ingest is public) is a link of the ingest span; true: its
  // parent too, for a provider whose traces you trust.
  TRACE_TRUST_INBOUND: flag(false),
  // Check every JSON answer against the operation's declared response schema (tests; costs CPU).
  API_VALIDATE_RESPONSES: flag(false),
});

// Settings that default from others.
const schema = fields.transform(({ DEFAULT_SIGNING_SECRET, ...settings }, ctx) => {
  const publicBaseUrl = settings.PUBLIC_BASE_URL ?? `http://localhost:${settings.PORT}`;
  return {
    ...settings,
    PUBLIC_BASE_URL: publicBaseUrl,
    OIDC_REDIRECT_URL: settings.OIDC_REDIRECT_URL ?? `${publicBaseUrl.replace(/\/+$/, '')}/api/auth/callback/idp`,
    SESSION_COOKIE_SECURE: settings.SESSION_COOKIE_SECURE ?? publicBaseUrl.toLowerCase().startsWith('https:'),
    /** Whether DEFAULT_SIGNING_SECRET is set: rules and destinations without a secret of their own are signed. */
    DEFAULT_SIGNING: DEFAULT_SIGNING_SECRET !== undefined,
    /** Each role's Redis: queue, cache, feed (the main connection unless the role has a URL of its own). */
    REDIS: redisTargetsOf(settings, ctx),
  };
});

export type ApiConfig = z.output<typeof schema>;

/** Every setting the api reads (a repository test checks docker-compose.yml and .env.example against them). */
export const API_SETTING_NAMES = Object.keys(fields.shape);

export function parseApiConfig(env: Record<string, string | undefined>): ApiConfig {
  return parseSettings(schema, env);
}
