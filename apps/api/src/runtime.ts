import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import { DEFAULT_ORGANIZATION_ID, parseAllowlist, parsePortPolicy, type TargetPolicy } from '@relay/core';
import { createDatabase, createRepositories } from '@relay/db';
import {
  createDeliveryQueue,
  createFeedPublisher,
  createFeedSubscriber,
  createPacingLimiter,
  createNodeRedisClient,
  createRedisConnection,
  createRoleConnections,
  createRuleChangePublisher,
} from '@relay/queue';
import { createTransformRunner } from '@relay/transform';
import { NOOP_TRACER, type Tracer } from '@relay/service-kit';
import type { Express } from 'express';
import type { Logger } from 'pino';
import { createApp } from './app';
import { createHttpServer } from './http/http-server';
import { createIdempotencyStore } from './http/idempotency-store';
import { createLoginLimiter } from './auth/login-limiter';
import { createPasswordHasher } from './auth/passwords';
import { sessionMiddleware } from './auth/sessions';
import type { ApiConfig } from './config';
import { buildOpenApiDocument } from './openapi/openapi-document';
import { createIngestService } from './modules/ingest/ingest.service';
import { createDnsVerifier, parseDnsServers } from './modules/domains/dns-verifier';
import { ACCESS_TABLE, ALL_OPERATIONS, RESERVED_PATH_SEGMENTS } from './composition/catalog';
import type { ModuleContext } from './composition/module-context';
import { createServices } from './composition/services';
import { createReadSide } from './composition/read-side';
import { ensureInitialAdmin } from './modules/users/create-user';
import { resealSecrets } from './modules/rules/reseal-secrets';
import { createHostResolver } from './modules/platform/host-resolver';
import { createEventStreams } from './modules/stream/event-stream';
import { createLimits } from './modules/limits/limits';
import { createApiMetrics } from './modules/metrics/api-metrics';
import { createInFlightLimit } from './modules/ingest/in-flight-limit';
import { createQueueView } from './modules/queue-view/queue-view';
import { createPacingStateReader } from './modules/rules/pacing-state';

/** Package version, shown in the OpenAPI document. */
const VERSION = '0.0.0';

export interface ApiRuntime {
  app: Express;
  /** An HTTP server for the app with the HTTP_* limits applied (not listening yet). */
  createServer(): Server;
  /** Start-up work before serving: the initial admin, when configured. */
  start(): Promise<void>;
  /** Marks the process as shutting down (readiness turns 503). */
  beginShutdown(): void;
  /** Flushes pending ingest batches and closes every connection. */
  close(): Promise<void>;
  /** Webhooks waiting for their group commit (tests: a shutdown that must flush them). */
  ingestWaiting(): number;
}

export function targetPolicyOf(config: {
  TARGET_ALLOW_PRIVATE: boolean;
  TARGET_ALLOWLIST?: string | undefined;
  TARGET_ALLOWED_PORTS?: string | undefined;
}): TargetPolicy {
  return {
    allowPrivate: config.TARGET_ALLOW_PRIVATE,
    allowlist: parseAllowlist(config.TARGET_ALLOWLIST),
    allowedPorts: parsePortPolicy(config.TARGET_ALLOWED_PORTS),
  };
}

/** Wires the api process from its settings: used by main.ts and by tests alike. */
export function createApiRuntime(
  config: ApiConfig,
  logger: Logger,
  /** Tests: the clock the monthly quota's billing periods and the deduplication windows follow. */
  overrides: { now?: () => Date; tracer?: Tracer } = {},
): ApiRuntime {
  const { tracer = NOOP_TRACER, ...clock } = overrides;
  const db = createDatabase({
    url: config.DATABASE_URL,
    poolSize: config.DATABASE_POOL_SIZE,
    onPoolError: (err) => logger.warn({ err }, 'postgres pool error'),
  });
  const repositories = createRepositories(db, {
    defaultTargetUrl: config.DEFAULT_TARGET_URL,
    sensitiveHeaders: config.SENSITIVE_HEADERS,
  });
  // History reads (lists, search, stats, exports) go to DATABASE_READ_URL's replica while it keeps up.
  const readSide = createReadSide(config, db, logger, { sensitiveHeaders: config.SENSITIVE_HEADERS });
  const ingestInFlight = createInFlightLimit(config.INGEST_MAX_IN_FLIGHT);
  // This process's Prometheus registry (GET /metrics); the live streams are counted when scraped.
  const metrics = createApiMetrics({
    ingestInFlight: () => ingestInFlight.count,
    organizationLabels: config.METRICS_ORGANIZATION_LABELS,
    pool: db.pool,
    replica: readSide.replica,
    sseSubscribers: () => streams.size,
  });
  // Each role's Redis (REDIS_QUEUE_URL, REDIS_CACHE_URL, REDIS_FEED_URL, else the main one): one producer
  // connection per distinct Redis. `redis` is the queue's.
  const roles = createRoleConnections(config.REDIS, 'producer');
  const redis = roles.queue;
  const queue = createDeliveryQueue({
    connection: redis,
    prefix: config.QUEUE_PREFIX,
    shards: config.REDIS_QUEUE_SHARDS,
  });
  const feed = createFeedPublisher({
    redis: roles.feed,
    prefix: config.QUEUE_PREFIX,
    onError: (err) => logger.debug({ err }, 'live feed publish failed'),
  });
  const ruleChanges = createRuleChangePublisher({
    redis: roles.feed,
    prefix: config.QUEUE_PREFIX,
    onError: (err) => logger.warn({ err }, 'rule change not published; workers learn it within RULE_CACHE_MS'),
  });
  // A subscribed connection can do nothing else; one per process serves every open stream.
  const subscriber = createFeedSubscriber({
    redis: createRedisConnection(config.REDIS.feed, 'subscriber'),
    prefix: config.QUEUE_PREFIX,
  });
  const ingest = createIngestService({
    events: repositories.events,
    dedup: repositories.eventDedup,
    queue,
    feed,
    logger,
    batch: {
      maxSize: config.INGEST_BATCH_MAX,
      maxWaitMs: config.INGEST_BATCH_WAIT_MS,
      maxInFlight: config.INGEST_FLUSH_CONCURRENCY,
      maxBytes: config.INGEST_BATCH_MAX_BYTES,
    },
    onBatch: (size) => metrics.ingestBatch(size),
    tracer,
  });
  // The transform sandbox (docs/transformations.md): transform-test runs in it and a saved transform is compiled in
  // it. Its threads start on first use, so a relay whose teams never write a transform pays nothing.
  const transforms = createTransformRunner({
    timeoutMs: config.TRANSFORM_TIMEOUT_MS,
    memoryMb: config.TRANSFORM_MEMORY_MB,
    concurrency: config.TRANSFORM_CONCURRENCY,
    maxOutputBytes: config.INGEST_MAX_BODY_BYTES,
  });
  // The workers' pacing limiter, read only for its state (GET of one rule or destination): commands on the
  // producer connection (closed with it), under the workers' QUEUE_PREFIX; no subscriber, holds are not acted on here.
  const pacingState = createPacingStateReader({
    limiter: createPacingLimiter({ redis: roles.cache, prefix: config.QUEUE_PREFIX }),
    timeoutMs: config.REDIS_COMMAND_TIMEOUT_MS,
    logger,
  });
  let shuttingDown = false;
  // Set when start() has finished its work; /ready answers 503 until then.
  let started = false;
  const passwords = createPasswordHasher({
    memoryKib: config.PASSWORD_HASH_MEMORY_KIB,
    timeCost: config.PASSWORD_HASH_TIME_COST,
  });
  // connect-redis speaks node-redis only; ioredis stays for BullMQ. While Redis is away node-redis keeps
  // commands until it is back: each is bounded by the command timeout, so a login, Basic or cookie request
  // answers 503 after it rather than waiting for Redis (at start-up, the wait covers the first connect).
  const sessionRedis = createNodeRedisClient(config.REDIS.cache, { commandTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS });
  void sessionRedis.connect((err) => logger.warn({ err }, 'session store: Redis not reachable yet'));
  const sessionSecret = config.SESSION_SECRET ?? randomBytes(32).toString('hex');
  if (!config.SESSION_SECRET) {
    logger.warn(
      'SESSION_SECRET is not set: sessions end when this process restarts and are not shared between api processes',
    );
  }
  // Behind a TLS-terminating proxy the api sees plain http unless the proxy is trusted: the Secure
  // session cookie is then never set, and every client shares the proxy's IP for login limits.
  if (config.PUBLIC_BASE_URL.toLowerCase().startsWith('https:') && !config.TRUST_PROXY) {
    logger.warn(
      'PUBLIC_BASE_URL is https but TRUST_PROXY is not set: set TRUST_PROXY to the proxy that terminates TLS, ' +
        'or logins set no (Secure) session cookie and login limits count every client under the proxy IP',
    );
  }
  const streams = createEventStreams({
    feed: subscriber,
    replay: repositories.feedReplay,
    logger,
    heartbeatMs: config.STREAM_HEARTBEAT_MS,
    replayLimit: config.STREAM_REPLAY_LIMIT,
  });
  const hosts = { canonicalHost: config.INGEST_CANONICAL_HOST?.toLowerCase(), publicBaseUrl: config.PUBLIC_BASE_URL };
  const ctx: ModuleContext = {
    config,
    logger,
    metrics,
    repositories,
    reads: readSide.reads,
    queue,
    feed,
    ruleChanges,
    streams,
    ingest,
    ingestInFlight,
    tracer,
    transforms,
    pacingState,
    limits: createLimits({ settings: config, redis: roles.cache, repositories, logger, ...clock }),
    passwords,
    loginLimiter: createLoginLimiter({
      client: sessionRedis,
      prefix: config.QUEUE_PREFIX,
      maxPerUser: config.LOGIN_MAX_FAILURES_PER_USER,
      maxPerAccount: config.LOGIN_MAX_FAILURES_PER_ACCOUNT,
      maxPerIp: config.LOGIN_MAX_FAILURES_PER_IP,
      windowSeconds: config.LOGIN_WINDOW_SECONDS,
      onFailure: (kind, reason) => metrics.loginFailed(kind, reason),
    }),
    targetPolicy: targetPolicyOf(config),
    hosts,
    organizationOf: createHostResolver({
      settings: hosts,
      organizations: repositories.organizations,
      domains: repositories.domains,
      cacheMs: config.INGEST_HOST_CACHE_MS,
    }),
    verifyDomain: hosts.canonicalHost
      ? createDnsVerifier({ canonicalHost: hosts.canonicalHost, servers: parseDnsServers(config.DNS_SERVERS) })
      : undefined,
    readiness: {
      checks: {
        database: () => db.ping(),
        redis: async () => void (await Promise.all(roles.distinct.map((connection) => connection.ping()))),
      },
      replica: readSide.replica,
      isStarted: () => started,
      isShuttingDown: () => shuttingDown,
    },
    now: clock.now,
    catalog: {
      reservedSegments: RESERVED_PATH_SEGMENTS,
      accessRules: Object.values(ACCESS_TABLE),
      openApiDocument: () =>
        buildOpenApiDocument(ALL_OPERATIONS, { version: VERSION, serverUrl: config.PUBLIC_BASE_URL }),
    },
  };
  // Read-only bull-board over the job catalog's queues, on the producer connection.
  const queueView = createQueueView({
    connection: redis,
    prefix: config.QUEUE_PREFIX,
    shards: config.REDIS_QUEUE_SHARDS,
  });
  const app = createApp({
    ctx,
    queueView: queueView.router,
    services: createServices(ctx),
    sessionMiddleware: sessionMiddleware({
      client: sessionRedis,
      secret: sessionSecret,
      ttlSeconds: config.SESSION_TTL_SECONDS,
      secure: config.SESSION_COOKIE_SECURE,
      prefix: config.QUEUE_PREFIX,
    }),
    idempotency: createIdempotencyStore({
      client: sessionRedis,
      prefix: config.QUEUE_PREFIX,
      ttlSeconds: config.IDEMPOTENCY_TTL_SECONDS,
      // Longer than any request may run: a duplicate must not act while the first still runs.
      runningSeconds: 600,
      onError: (err) => logger.warn({ err }, 'idempotency: could not store or free an answer'),
    }),
  });
  const userDeps = { repositories, passwords };
  return {
    app,
    createServer: () =>
      createHttpServer(app, {
        headersTimeoutMs: config.HTTP_HEADERS_TIMEOUT_MS,
        requestTimeoutMs: config.HTTP_REQUEST_TIMEOUT_MS,
        keepAliveTimeoutMs: config.HTTP_KEEP_ALIVE_TIMEOUT_MS,
        connectionsCheckIntervalMs: config.HTTP_CONNECTIONS_CHECK_INTERVAL_MS,
      }),
    async start() {
      await resealSecrets(repositories, config.SECRET_ENCRYPTION_KEYS, logger);
      if (config.INITIAL_ADMIN_USERNAME && config.INITIAL_ADMIN_PASSWORD) {
        const admin = await ensureInitialAdmin(userDeps, DEFAULT_ORGANIZATION_ID, {
          username: config.INITIAL_ADMIN_USERNAME,
          password: config.INITIAL_ADMIN_PASSWORD,
          email: config.INITIAL_ADMIN_EMAIL,
        });
        if (admin) logger.info({ username: admin.username }, 'created the initial admin of the default organization');
      }
      started = true;
    },
    beginShutdown: () => {
      shuttingDown = true;
      // Open streams would hold server.close() forever; their clients reconnect to another process.
      streams.closeAll();
    },
    ingestWaiting: () => ingest.waiting(),
    async close() {
      shuttingDown = true;
      streams.closeAll();
      await subscriber.close();
      await ingest.drain();
      await queue.close().catch(() => {});
      await queueView.close();
      await transforms.close();
      for (const connection of roles.distinct) connection.disconnect();
      await sessionRedis.close();
      await readSide.close();
      await db.close();
    },
  };
}
