import { DEFAULT_ORGANIZATION_ID, parseAllowlist, type TargetPolicy } from '@relay/core';
import {
  createAuditRepository,
  createCredentialRepository,
  createDatabase,
  createEventActionRepository,
  createEventQueryRepository,
  createEventRepository,
  createFeedReplayRepository,
  createHookRepository,
  createDomainRepository,
  createOperatorRepository,
  createOrganizationRepository,
  createPlatformRepository,
  createProviderRepository,
  createStatsRepository,
  createUserRepository,
} from '@relay/db';
import { createDeliveryQueue, createFeedPublisher, createFeedSubscriber, createRedisConnection } from '@relay/queue';
import type { Express } from 'express';
import type { Logger } from 'pino';
import { createApp } from './app';
import { randomBytes } from 'node:crypto';
import { createClient, type RedisClientType } from 'redis';
import { ensureInitialAdmin } from './auth/create-user';
import { createLoginLimiter } from './auth/login-limiter';
import { sessionMiddleware } from './auth/sessions';
import { createPasswordHasher } from './auth/passwords';
import type { ApiConfig } from './config';
import { createIngestService } from './ingest/ingest.service';
import { createEventActions } from './events/event-actions';
import { BULK_CAP } from './routes/events.contract';
import { createEventStreams } from './stream/event-stream';
import { createDomainActions } from './domains/domain-actions';
import { createDnsVerifier, parseDnsServers } from './domains/dns-verifier';
import { createHostResolver } from './platform/host-resolver';

export interface ApiRuntime {
  app: Express;
  /** Start-up work before serving: the initial admin, when configured. */
  start(): Promise<void>;
  /** Marks the process as shutting down (readiness turns 503). */
  beginShutdown(): void;
  /** Flushes pending ingest batches and closes every connection. */
  close(): Promise<void>;
}

export function targetPolicyOf(config: {
  TARGET_ALLOW_PRIVATE: boolean;
  TARGET_ALLOWLIST?: string | undefined;
}): TargetPolicy {
  return { allowPrivate: config.TARGET_ALLOW_PRIVATE, allowlist: parseAllowlist(config.TARGET_ALLOWLIST) };
}

/** Wires the api process from its settings: used by main.ts and by tests alike. */
export function createApiRuntime(config: ApiConfig, logger: Logger): ApiRuntime {
  const db = createDatabase({
    url: config.DATABASE_URL,
    poolSize: config.DATABASE_POOL_SIZE,
    onPoolError: (err) => logger.warn({ err }, 'postgres pool error'),
  });
  const redis = createRedisConnection(config.REDIS_URL, 'producer');
  const queue = createDeliveryQueue({ connection: redis, prefix: config.QUEUE_PREFIX });
  const feed = createFeedPublisher({
    redis,
    prefix: config.QUEUE_PREFIX,
    onError: (err) => logger.debug({ err }, 'live feed publish failed'),
  });
  // A subscribed connection can do nothing else; one per process serves every open stream.
  const subscriber = createFeedSubscriber({
    redis: createRedisConnection(config.REDIS_URL, 'subscriber'),
    prefix: config.QUEUE_PREFIX,
  });
  const ingest = createIngestService({
    events: createEventRepository(db.pool, { defaultTargetUrl: config.DEFAULT_TARGET_URL }),
    queue,
    feed,
    logger,
    batch: { maxSize: config.INGEST_BATCH_MAX, maxWaitMs: config.INGEST_BATCH_WAIT_MS },
  });
  let shuttingDown = false;
  const auth = {
    users: createUserRepository(db.prisma),
    credentials: createCredentialRepository(db.prisma),
    operators: createOperatorRepository(db.prisma),
    organizations: createOrganizationRepository(db.prisma),
    audit: createAuditRepository(db.prisma),
    passwords: createPasswordHasher({
      memoryKib: config.PASSWORD_HASH_MEMORY_KIB,
      timeCost: config.PASSWORD_HASH_TIME_COST,
    }),
  };
  // connect-redis speaks node-redis only; ioredis stays for BullMQ.
  const sessionRedis: RedisClientType = createClient({
    url: config.REDIS_URL,
    socket: { connectTimeout: 2_000, reconnectStrategy: (retries) => Math.min(retries * 200, 2_000) },
  });
  sessionRedis.on('error', () => {});
  void sessionRedis.connect().catch((err: unknown) => logger.warn({ err }, 'session store: Redis not reachable yet'));
  const sessionSecret = config.SESSION_SECRET ?? randomBytes(32).toString('hex');
  if (!config.SESSION_SECRET)
    logger.warn(
      'SESSION_SECRET is not set: sessions end when this process restarts and are not shared between api processes',
    );
  const providers = createProviderRepository(db.prisma);
  const streams = createEventStreams({
    feed: subscriber,
    replay: createFeedReplayRepository(db.pool),
    logger,
    heartbeatMs: config.STREAM_HEARTBEAT_MS,
    replayLimit: config.STREAM_REPLAY_LIMIT,
  });
  const targetPolicy = targetPolicyOf(config);
  const hosts = { canonicalHost: config.INGEST_CANONICAL_HOST?.toLowerCase(), publicBaseUrl: config.PUBLIC_BASE_URL };
  const domains = createDomainRepository(db.prisma);
  const organizationOf = createHostResolver({
    settings: hosts,
    organizations: auth.organizations,
    domains,
    cacheMs: config.INGEST_HOST_CACHE_MS,
  });
  const app = createApp({
    logger,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    trustProxy:
      config.TRUST_PROXY === undefined
        ? false
        : /^\d+$/.test(config.TRUST_PROXY)
          ? Number(config.TRUST_PROXY)
          : config.TRUST_PROXY,
    auth,
    sessions: {
      middleware: sessionMiddleware({
        client: sessionRedis,
        secret: sessionSecret,
        ttlSeconds: config.SESSION_TTL_SECONDS,
        secure: config.SESSION_COOKIE_SECURE,
        prefix: config.QUEUE_PREFIX,
      }),
      limiter: createLoginLimiter({
        client: sessionRedis,
        prefix: config.QUEUE_PREFIX,
        maxPerUser: config.LOGIN_MAX_FAILURES_PER_USER,
        maxPerIp: config.LOGIN_MAX_FAILURES_PER_IP,
        windowSeconds: config.LOGIN_WINDOW_SECONDS,
      }),
      secureCookie: config.SESSION_COOKIE_SECURE,
    },
    health: {
      checks: { database: () => db.ping(), redis: async () => void (await redis.ping()) },
      isShuttingDown: () => shuttingDown,
    },
    events: {
      queries: createEventQueryRepository(db.pool),
      actions: createEventActions({
        actions: createEventActionRepository(db.pool),
        queue,
        audit: auth.audit,
        logger,
        bulkCap: BULK_CAP,
        feed,
      }),
    },
    stats: { stats: createStatsRepository(db.pool) },
    streams,
    rules: { providers, hooks: createHookRepository(db.prisma), audit: auth.audit, targetPolicy },
    send: {
      ingest,
      providers,
      organizations: auth.organizations,
      audit: auth.audit,
      targetPolicy,
      installDefaultTarget: config.DEFAULT_TARGET_URL,
    },
    settings: {
      organizations: auth.organizations,
      audit: auth.audit,
      targetPolicy,
      installDefaultTarget: config.DEFAULT_TARGET_URL,
      publicBaseUrl: config.PUBLIC_BASE_URL,
      oidc: { issuer: config.OIDC_ISSUER_URL, clientId: config.OIDC_CLIENT_ID },
      hosts,
      domains,
      organizationOf,
    },
    platform: {
      platform: createPlatformRepository(db.prisma),
      operators: auth.operators,
      audit: auth.audit,
      passwords: auth.passwords,
      hosts,
      adminToken: config.PLATFORM_ADMIN_TOKEN,
    },
    domains: createDomainActions({
      domains,
      audit: auth.audit,
      canonicalHost: hosts.canonicalHost,
      verify: hosts.canonicalHost
        ? createDnsVerifier({ canonicalHost: hosts.canonicalHost, servers: parseDnsServers(config.DNS_SERVERS) })
        : undefined,
    }),
    ingest: {
      organizationOf,
      ingest,
      maxBodyBytes: config.INGEST_MAX_BODY_BYTES,
      defaultSource: config.DEFAULT_SOURCE,
      allowTargetOverride: config.ALLOW_PUBLIC_TARGET_OVERRIDE,
      targetPolicy,
    },
  });
  return {
    app,
    async start() {
      if (config.INITIAL_ADMIN_USERNAME && config.INITIAL_ADMIN_PASSWORD) {
        const admin = await ensureInitialAdmin(auth, DEFAULT_ORGANIZATION_ID, {
          username: config.INITIAL_ADMIN_USERNAME,
          password: config.INITIAL_ADMIN_PASSWORD,
          email: config.INITIAL_ADMIN_EMAIL,
        });
        if (admin) logger.info({ username: admin.username }, 'created the initial admin of the default organization');
      }
    },
    beginShutdown: () => {
      shuttingDown = true;
      // Open streams would hold server.close() forever; their clients reconnect to another process.
      streams.closeAll();
    },
    async close() {
      shuttingDown = true;
      streams.closeAll();
      await subscriber.close();
      await ingest.drain();
      await queue.close().catch(() => {});
      redis.disconnect();
      await sessionRedis.close().catch(() => {});
      await db.close();
    },
  };
}
