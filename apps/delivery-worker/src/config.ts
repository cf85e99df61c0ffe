import { flag, integer, LOG_LEVELS, optionalText, parseSettings, secretKeysSetting, text } from '@relay/core';
import { z } from 'zod';

const schema = z.object({
  DATABASE_URL: text('postgresql://postgres@127.0.0.1:5432/test'),
  REDIS_URL: text('redis://127.0.0.1:6379'),
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  QUEUE_PREFIX: text('relay'),
  DEFAULT_TARGET_URL: optionalText(),
  DEFAULT_SIGNING_SECRET: optionalText(),
  TARGET_ALLOW_PRIVATE: flag(false),
  TARGET_ALLOWLIST: optionalText(),
  TARGET_ALLOWED_PORTS: optionalText(),
  // Opens the sealed signing secrets; the same value as the api's.
  SECRET_ENCRYPTION_KEYS: secretKeysSetting(),
  DELIVERY_CONCURRENCY: integer(32, 1, 1_000),
  HOOK_CONCURRENCY: integer(8, 1, 1_000),
  DELIVERY_MAX_ATTEMPTS: integer(10, 1, 100),
  DELIVERY_BACKOFF_BASE_MS: integer(10_000, 0),
  DELIVERY_BACKOFF_MAX_MS: integer(3_600_000, 0),
  RETRY_AFTER_MAX_MS: integer(3_600_000, 0),
  DELIVERY_TIMEOUT_MS: integer(15_000, 1),
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
  SEARCH_INDEX_INTERVAL_MS: integer(1_000, 10),
  SEARCH_INDEX_BATCH: integer(1_000, 1, 100_000),
  SEARCH_INDEX_MAX_PENDING: integer(10_000, 0, 10_000_000),
  WORKER_LOCK_DURATION_MS: integer(30_000, 100),
  WORKER_STALLED_INTERVAL_MS: integer(30_000, 100),
  WORKER_HEALTH_PORT: integer(3001, 0, 65_535),
  DATABASE_POOL_SIZE: integer(20, 1, 500),
  SHUTDOWN_TIMEOUT_MS: integer(25_000, 0),
});

export type WorkerConfig = z.output<typeof schema>;

export function parseWorkerConfig(env: Record<string, string | undefined>): WorkerConfig {
  return parseSettings(schema, env);
}
