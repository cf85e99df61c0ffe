import type { Repositories } from '@relay/db';
import type { RequestHandler } from 'express';
import type { RedisConnection } from '@relay/queue';
import type { Logger } from 'pino';
import { createIngestGate, type IngestGate } from './ingest-gate';
import { createLimitsCache, type LimitsOf } from './organization-limits';
import { createQuota, type Quota } from './quota';
import { createApiRateLimit, createIngestRateLimit } from './rate-limits';

export interface LimitsSettings {
  QUEUE_PREFIX: string;
  INGEST_RATE_LIMIT: number;
  API_RATE_LIMIT: number;
  RATE_LIMIT_WINDOW_SECONDS: number;
  INGEST_HOST_CACHE_MS: number;
}

/** What the api process enforces of issue 17: rate limits (ingest, API) and the monthly event quota. */
export interface Limits {
  limitsOf: LimitsOf;
  quota: Quota;
  /** Ingest asks it before reading a webhook's body. */
  ingestGate: IngestGate;
  /** Mounted on the API paths once the caller is known. */
  apiRateLimit: RequestHandler;
}

export function createLimits(deps: {
  settings: LimitsSettings;
  redis: RedisConnection;
  repositories: Pick<Repositories, 'organizations' | 'audit'>;
  logger: Logger;
  now?: () => Date;
}): Limits {
  const { settings, redis, logger } = deps;
  // The organization's own limits are remembered as long as the host → organization routing is.
  const limitsOf = createLimitsCache({
    organizations: deps.repositories.organizations,
    cacheMs: settings.INGEST_HOST_CACHE_MS,
  });
  const rate = { redis, prefix: settings.QUEUE_PREFIX, windowSeconds: settings.RATE_LIMIT_WINDOW_SECONDS, logger };
  const quota = createQuota({
    redis,
    prefix: settings.QUEUE_PREFIX,
    organizations: deps.repositories.organizations,
    audit: deps.repositories.audit,
    logger,
    ...(deps.now ? { now: deps.now } : {}),
  });
  return {
    limitsOf,
    quota,
    ingestGate: createIngestGate({
      limitsOf,
      defaultRateLimit: settings.INGEST_RATE_LIMIT,
      rateLimit: createIngestRateLimit(rate),
      quota,
    }),
    apiRateLimit: createApiRateLimit({ ...rate, defaultLimit: settings.API_RATE_LIMIT, limitsOf }),
  };
}
