import { flag, integer, LOG_LEVELS, optionalText, parseSettings, text } from '@relay/core';
import { z } from 'zod';

const schema = z.object({
  DATABASE_URL: text('postgresql://postgres@127.0.0.1:5432/test'),
  REDIS_URL: text('redis://127.0.0.1:6379'),
  PORT: integer(3000, 0, 65_535),
  HOST: text('0.0.0.0'),
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  QUEUE_PREFIX: text('relay'),
  PUBLIC_BASE_URL: text('http://localhost:3000'),
  DEFAULT_TARGET_URL: optionalText(),
  // Identity-provider login (OIDC): reported by GET /config/oauth; the login flow is a later issue.
  OIDC_ISSUER_URL: optionalText(),
  OIDC_CLIENT_ID: optionalText(),
  ALLOW_PUBLIC_TARGET_OVERRIDE: flag(false),
  INGEST_MAX_BODY_BYTES: integer(1_048_576, 1, 100 * 1_048_576),
  DEFAULT_SOURCE: text('default'),
  INGEST_BATCH_MAX: integer(100, 1, 1_000),
  INGEST_BATCH_WAIT_MS: integer(2, 0, 1_000),
  TARGET_ALLOW_PRIVATE: flag(false),
  TARGET_ALLOWLIST: optionalText(),
  DATABASE_POOL_SIZE: integer(20, 1, 500),
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
  SESSION_COOKIE_SECURE: flag(false),
  // Failed logins allowed per username + IP, and per IP, within the window (Redis, shared).
  LOGIN_MAX_FAILURES_PER_USER: integer(5, 1, 1_000),
  LOGIN_MAX_FAILURES_PER_IP: integer(50, 1, 100_000),
  LOGIN_WINDOW_SECONDS: integer(900, 1, 86_400),
  // Proxies whose X-Forwarded-For/-Proto are believed (Express 'trust proxy': 'loopback', a hop
  // count, or comma-separated CIDRs). Unset: none — client IPs and https come from the socket.
  TRUST_PROXY: optionalText(),
  // Hosted organizations: the bootstrap token of the first platform operator (unset: bootstrap disabled),
  // the host whose subdomains are organizations' ingest hosts, and the DNS servers used to verify domains.
  PLATFORM_ADMIN_TOKEN: optionalText(),
  INGEST_CANONICAL_HOST: optionalText(),
  DNS_SERVERS: optionalText(),
  // How long ingest remembers which organization a host belongs to (suspensions and deleted domains
  // take effect within it).
  INGEST_HOST_CACHE_MS: integer(5_000, 0, 300_000),
  // Live stream (GET /events/stream): comment heartbeat interval, and most messages replayed on resume.
  STREAM_HEARTBEAT_MS: integer(15_000, 100, 300_000),
  STREAM_REPLAY_LIMIT: integer(1_000, 1, 100_000),
  // Check every JSON answer against the operation's declared response schema (tests; costs CPU).
  API_VALIDATE_RESPONSES: flag(false),
});

export type ApiConfig = z.output<typeof schema>;

export function parseApiConfig(env: Record<string, string | undefined>): ApiConfig {
  return parseSettings(schema, env);
}
