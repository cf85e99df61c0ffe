import { AppError, type OrgId } from '@relay/core';
import type { Request, RequestHandler, Response } from 'express';
import { ipKeyGenerator, rateLimit, type AugmentedRequest, type Options } from 'express-rate-limit';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { LimitsOf } from './organization-limits';
import { createRedisStore } from './redis-store';

export interface RateLimitDeps {
  redis: Redis;
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

export type IngestRateLimit = (orgId: OrgId, limit: number, req: Request, res: Response) => Promise<void>;

/**
 * The ingest limit: webhooks per window for a whole organization. It runs inside the ingest route, once the
 * organization is known, so the caller gives the key and the limit; it rejects with `rate_limited`.
 */
export function createIngestRateLimit(deps: RateLimitDeps): IngestRateLimit {
  const pending = new WeakMap<Request, { orgId: OrgId; limit: number }>();
  const limiter = rateLimit({
    ...limiterOptions(deps, 'ingest'),
    limit: (req: Request) => pending.get(req)?.limit ?? 1,
    keyGenerator: (req: Request) => `org:${pending.get(req)?.orgId ?? ''}`,
  });
  return (orgId, limit, req, res) =>
    new Promise<void>((resolve, reject) => {
      pending.set(req, { orgId, limit });
      void limiter(req, res, (err?: unknown) => {
        if (err === undefined || err === null) resolve();
        else reject(err instanceof Error ? err : new Error('rate limiter failed', { cause: err }));
      });
    });
}
