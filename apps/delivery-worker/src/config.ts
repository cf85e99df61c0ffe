import {
  DEFAULT_UNHEALTHY_AFTER_SECONDS,
  flag,
  integer,
  LOG_LEVELS,
  optionalText,
  MAX_QUEUE_SHARDS,
  parseQueueShardList,
  parseSettings,
  PARTITION_PERIODS,
  redisSettingFields,
  redisTargetsOf,
  secretKeysSetting,
  sensitiveHeadersSetting,
  text,
  tracingFields,
} from '@relay/core';
import { z } from 'zod';
import { parseProxyUrl } from './outbound-proxy';

// A cron pattern as BullMQ's job scheduler reads it: five fields, or six with seconds first.
const CRON = /^\S+(\s+\S+){4,5}$/;

const fields = z.object({
  DATABASE_URL: text('postgresql://postgres@127.0.0.1:5432/test'),
  // REDIS_URL, REDIS_CLUSTER_NODES, REDIS_SENTINELS… and the roles' own URLs (docs/operations.md).
  ...redisSettingFields,
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  QUEUE_PREFIX: text('relay'),
  // Queue shards (docs/operations.md "Queue shards"): the delivery and hook queues split into this many BullMQ
  // queues, each under its own hash tag; the same value in the api and every worker.
  REDIS_QUEUE_SHARDS: integer(1, 1, MAX_QUEUE_SHARDS),
  // The shards this worker consumes (`0,2`, `0-3`); unset: every shard. A shard past REDIS_QUEUE_SHARDS drains what a
  // larger shard count left there.
  WORKER_QUEUE_SHARDS: optionalText().refine((value) => typeof parseQueueShardList(value, 1) !== 'string', {
    message: 'must be shard numbers or ranges, e.g. 0,2 or 0-3',
  }),
  DEFAULT_TARGET_URL: optionalText(),
  DEFAULT_SIGNING_SECRET: optionalText(),
  TARGET_ALLOW_PRIVATE: flag(false),
  TARGET_ALLOWLIST: optionalText(),
  TARGET_ALLOWED_PORTS: optionalText(),
  // Deliveries and hooks go out through this HTTP CONNECT proxy (outbound-proxy.ts); the target policy
  // still checks every target, the proxy's own address is the operator's and is not checked.
  OUTBOUND_PROXY_URL: optionalText().refine((value) => value === undefined || parseProxyUrl(value) !== null, {
    message: 'must be http://host:port or http://user:password@host:port',
  }),
  // Opens the sealed signing secrets; the same value as the api's.
  SECRET_ENCRYPTION_KEYS: secretKeysSetting(),
  DELIVERY_CONCURRENCY: integer(32, 1, 1_000),
  HOOK_CONCURRENCY: integer(8, 1, 1_000),
  DELIVERY_MAX_ATTEMPTS: integer(10, 1, 100),
  DELIVERY_BACKOFF_BASE_MS: integer(10_000, 0),
  DELIVERY_BACKOFF_MAX_MS: integer(3_600_000, 0),
  RETRY_AFTER_MAX_MS: integer(3_600_000, 0),
  DELIVERY_TIMEOUT_MS: integer(15_000, 1),
  // Transforms (docs/transformations.md): one sandbox pool per worker process. Its RSS budget with transforms is
  // 200 MB + TRANSFORM_CONCURRENCY × TRANSFORM_MEMORY_MB. A transform's body may be at most INGEST_MAX_BODY_BYTES.
  TRANSFORM_TIMEOUT_MS: integer(1_000, 10, 60_000),
  TRANSFORM_MEMORY_MB: integer(64, 8, 4_096),
  TRANSFORM_CONCURRENCY: integer(2, 1, 64),
  INGEST_MAX_BODY_BYTES: integer(1_048_576, 1, 100 * 1_048_576),
  // How long a worker remembers a rule's settings (health, policy, secrets) between deliveries.
  RULE_CACHE_MS: integer(1_000, 0, 60_000),
  // Endpoint health (rule-health.ts): a rule whose attempts fail with no success for this long turns
  // unhealthy and its events pause; a rule's own unhealthy_after_seconds wins.
  RULE_UNHEALTHY_AFTER_SECONDS: integer(DEFAULT_UNHEALTHY_AFTER_SECONDS, 60, 90 * 86_400),
  DELIVERY_FAULT_MAX_DEFERS: integer(5, 0, 1_000),
  DELIVERY_FAULT_DEFER_MS: integer(5_000, 0),
  DELIVERY_TARGET_SHARE_PERCENT: integer(50, 1, 100),
  DELIVERY_FAIR_RESERVE_PERCENT: integer(25, 0, 100),
  DELIVERY_FAIR_WAIT_MS: integer(250, 0),
  DELIVERY_FAIR_WAIT_MAX_MS: integer(10_000, 0),
  SWEEP_INTERVAL_MS: integer(15_000, 10),
  SWEEP_GRACE_MS: integer(30_000, 0),
  // Background search indexing (search-indexer.ts): how often pending events are indexed, and how many
  // per statement.
  SEARCH_INDEX_INTERVAL_MS: integer(200, 10),
  SEARCH_INDEX_BATCH: integer(200, 1, 100_000),
  SEARCH_INDEX_MAX_PENDING: integer(10_000, 0, 10_000_000),
  // Header names left out of the search text: the same value as the api's (names added to the built-in list).
  SENSITIVE_HEADERS: sensitiveHeadersSetting(),
  // Retention (retention/): days events are kept after their last change, 0/unset = off unless an
  // organization has its own; unacknowledged failures up to the hard maximum; audit entries on their own.
  RETENTION_DAYS: integer(0, 0, 36_500),
  RETENTION_FAILED_MAX_DAYS: integer(90, 1, 36_500),
  AUDIT_RETENTION_DAYS: integer(0, 0, 36_500),
  RETENTION_SCHEDULE: text('17 * * * *').refine((value) => CRON.test(value), {
    message: 'must be a cron pattern of 5 (or 6, with seconds) fields',
  }),
  RETENTION_BATCH_SIZE: integer(1_000, 1, 100_000),
  RETENTION_MAX_RUN_SECONDS: integer(600, 1, 86_400),
  // Partitioned history (partitions/, docs/partitioning.md): the period of the partitions created from now on (UTC
  // day, ISO week or month), and how far ahead of now the hourly job keeps them, so a job stopped for less than that
  // never makes ingest refuse an event.
  PARTITION_PERIOD: z.enum(PARTITION_PERIODS).default('day'),
  PARTITION_AHEAD_DAYS: integer(7, 1, 90),
  // Notices to organizations' notification URLs (notifications/): tries per notice and the first retry's
  // delay (doubling), and how often the digest of newly failed events is built.
  NOTIFICATION_MAX_ATTEMPTS: integer(5, 1, 50),
  NOTIFICATION_BACKOFF_MS: integer(30_000, 0),
  NOTIFICATION_DIGEST_INTERVAL_SECONDS: integer(900, 10, 86_400),
  WORKER_LOCK_DURATION_MS: integer(30_000, 100),
  WORKER_STALLED_INTERVAL_MS: integer(30_000, 100),
  WORKER_HEALTH_PORT: integer(3001, 0, 65_535),
  // GET /metrics on the health port: open while unset, else `Authorization: Bearer <METRICS_TOKEN>` is required.
  METRICS_TOKEN: optionalText(),
  // Adds an `organization` label to delivery metrics: one series per organization, so off by default.
  METRICS_ORGANIZATION_LABELS: flag(false),
  DATABASE_POOL_SIZE: integer(20, 1, 500),
  SHUTDOWN_TIMEOUT_MS: integer(25_000, 0),
  // Traces (docs/observability.md): the standard OTEL_* variables; unset endpoint, nothing is loaded.
  ...tracingFields,
  // Deliveries and hooks carry the relay's own `traceparent` (replacing a forwarded one, dropping its tracestate).
  // Off by default: a header the receiver did not ask for; a provider's own is then forwarded as received.
  TRACE_PROPAGATE_TO_TARGETS: flag(false),
});

// Settings that follow from others: each role's Redis (main connection or the role's own URL).
const schema = fields.transform((settings, ctx) => ({ ...settings, REDIS: redisTargetsOf(settings, ctx) }));

export type WorkerConfig = z.output<typeof schema>;

/** Every setting the worker reads (a repository test checks docker-compose.yml and .env.example against them). */
export const WORKER_SETTING_NAMES = Object.keys(fields.shape);

/** The queue shards this worker consumes: WORKER_QUEUE_SHARDS, or every shard of REDIS_QUEUE_SHARDS. */
export function consumedShards(config: Pick<WorkerConfig, 'WORKER_QUEUE_SHARDS' | 'REDIS_QUEUE_SHARDS'>): number[] {
  const shards = parseQueueShardList(config.WORKER_QUEUE_SHARDS, config.REDIS_QUEUE_SHARDS);
  if (typeof shards === 'string') throw new Error(`WORKER_QUEUE_SHARDS ${shards}`);
  return shards;
}

export function parseWorkerConfig(env: Record<string, string | undefined>): WorkerConfig {
  return parseSettings(schema, env);
}
