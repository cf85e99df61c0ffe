import { createHash } from 'node:crypto';
import { AppError, type OrgId } from '@relay/core';
import type { Request, RequestHandler } from 'express';
import { ipKeyGenerator, rateLimit, type AugmentedRequest, type Options } from 'express-rate-limit';
import type { RedisConnection } from '@relay/queue';
import type { Logger } from 'pino';
import type { LimitsOf } from './organization-limits';
import { createRedisStore } from './redis-store';

export interface RateLimitDeps {
  redis: RedisConnection;
  /** QUEUE_PREFIX: every api process of one install counts in the same keys. */
  prefix: string;
  windowSeconds: number;
  logger: Logger;
}

const secondsUntil = (at: Date | undefined, fallback: number) =>
  at ? Math.max(0, Math.ceil((at.getTime() - Date.now()) / 1000)) : fallback;

// Shared by both limiters: fixed windows counted in Redis by rate-limit-redis (one round trip), the IETF draft-8
// RateLimit-Policy and RateLimit headers on every counted answer, Retry-After on a refusal, and a refusal that is an
// AppError `rate_limited` going down the route's normal error path (problem document, ingest refusal counts). When
// Redis cannot be reached the request passes uncounted: limits never take ingest down with them.
function limiterOptions(deps: RateLimitDeps, name: string): Partial<Options> {
  return {
    windowMs: deps.windowSeconds * 1000,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    store: createRedisStore(deps.redis, `${deps.prefix}:ratelimit:${name}:`),
    passOnStoreError: true,
    // Its configuration checks and store errors, in the process's log (the store's means Redis is unreachable).
    logger: {
      warn: (err: unknown, message?: string) => deps.logger.warn({ err }, `${name} rate limit: ${message ?? ''}`),
      error: (err: unknown, message?: string) => deps.logger.warn({ err }, `${name} rate limit: ${message ?? ''}`),
    },
    handler: (req, _res, next, options) => {
      const info = (req as AugmentedRequest).rateLimit;
      const retryAfter = secondsUntil(info?.resetTime, Math.ceil(options.windowMs / 1000));
      next(
        new AppError('rate_limited', `Over ${info?.limit} requests in ${deps.windowSeconds} s.`, {
          limit: info?.limit,
          window_seconds: deps.windowSeconds,
          retry_after_seconds: retryAfter,
        }),
      );
    },
  };
}

/**
 * The API limit: requests per window for each credential — an API key or personal token by its id, a session or
 * Basic user by user id, a platform operator by operator id — and for unauthenticated requests per client IP.
 * The organization's api_rate_limit overrides API_RATE_LIMIT for its credentials; 0 turns the limit off.
 */
export function createApiRateLimit(deps: RateLimitDeps & { defaultLimit: number; limitsOf: LimitsOf }): RequestHandler {
  const limitOf = new WeakMap<Request, number>();
  const resolve = async (req: Request) => {
    const own = req.principal ? (await deps.limitsOf(req.principal.orgId)).apiRateLimit : null;
    const limit = own ?? deps.defaultLimit;
    limitOf.set(req, limit);
    return limit;
  };
  return rateLimit({
    ...limiterOptions(deps, 'api'),
    skip: async (req) => (await resolve(req)) === 0,
    limit: (req: Request) => limitOf.get(req) ?? deps.defaultLimit,
    keyGenerator: (req: Request) => {
      const principal = req.principal;
      if (principal?.credentialId) return `credential:${principal.credentialId}`;
      if (principal?.userId) return `user:${principal.userId}`;
      if (req.operator) return `operator:${req.operator.id}`;
      return `ip:${ipKeyGenerator(req.ip ?? '')}`;
    },
  });
}

/** Response headers a limit gives its answer: the draft-8 `RateLimit` and `RateLimit-Policy`. */
export type LimitHeaders = Readonly<Record<string, string>>;

/** Counts a webhook of the organization; its headers, or a `rate_limited` refusal carrying them. */
export type IngestRateLimit = (orgId: OrgId, limit: number) => Promise<LimitHeaders>;

// The quota unit of the draft-8 policy name, as express-rate-limit spells it for the API limit ("4-in-1min").
function windowName(seconds: number): string {
  if (seconds < 60) return `${seconds}sec`;
  if (seconds < 3_600) return `${seconds / 60}min`;
  if (seconds < 86_400) return `${seconds / 3_600}hr${seconds > 3_600 ? 's' : ''}`;
  return `${seconds / 86_400}day${seconds > 86_400 ? 's' : ''}`;
}

// draft-8's partition key: the first 12 hex digits of the key's SHA-256, in base64 (as express-rate-limit does).
const partitionKey = (key: string) =>
  Buffer.from(createHash('sha256').update(key).digest('hex').slice(0, 12)).toString('base64');

/**
 * The ingest limit: webhooks per window for a whole organization. It runs inside the ingest route, once the
 * organization is known, so the caller gives the key and the limit. It counts in the same Redis store and
 * answers the same headers as the API limit, but returns them instead of writing them to a response, so
 * ingest needs no Express exchange.
 */
export function createIngestRateLimit(deps: RateLimitDeps): IngestRateLimit {
  const store = createRedisStore(deps.redis, `${deps.prefix}:ratelimit:ingest:`);
  const ready = store.init({ windowMs: deps.windowSeconds * 1000 } as Options);
  return async (orgId, limit) => {
    const key = `org:${orgId}`;
    let counted: { totalHits: number; resetTime: Date | undefined };
    try {
      await ready;
      counted = await store.increment(key);
    } catch (err) {
      // Redis unreachable: the webhook passes uncounted (limits never take ingest down with them).
      deps.logger.warn({ err }, 'ingest rate limit: error from store, allowing request without rate-limiting.');
      return {};
    }
    const name = `${limit}-in-${windowName(deps.windowSeconds)}`;
    const retryAfter = secondsUntil(counted.resetTime, deps.windowSeconds);
    const headers = {
      RateLimit: `"${name}"; r=${Math.max(limit - counted.totalHits, 0)}; t=${retryAfter}`,
      'RateLimit-Policy': `"${name}"; q=${limit}; w=${deps.windowSeconds}; pk=:${partitionKey(key)}:`,
    };
    if (counted.totalHits <= limit) return headers;
    const details = { limit, window_seconds: deps.windowSeconds, retry_after_seconds: retryAfter };
    throw new AppError('rate_limited', `Over ${limit} requests in ${deps.windowSeconds} s.`, details, headers);
  };
}
