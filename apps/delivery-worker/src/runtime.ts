import { parseAllowlist, parsePortPolicy, type OrgId } from '@relay/core';
import {
  createAttemptRepository,
  createDatabase,
  createDeliveryRepository,
  createDestinationRepository,
  createEventRepository,
  createEventSearchRepository,
  createEventOrderingRepository,
  createEventSweepRepository,
  createHookRepository,
  createRuleRepository,
  createRuleHealthRepository,
  createTargetResolver,
  type NewTransform,
} from '@relay/db';
import {
  createDeliveryQueue,
  deliveryQueuePrefix,
  createFeedPublisher,
  createHookQueue,
  createRedisConnection,
  createRoleConnections,
  createPacingLimiter,
  createRuleChangePublisher,
  hookQueuePrefix,
  JOBS,
  QUEUES,
  subscribeRuleChanges,
  type DeliverJobData,
  type DestinationJobData,
  type HookJobData,
  type NoticeJobData,
} from '@relay/queue';
import { createTransformRunner } from '@relay/transform';
import { Worker, type Job } from 'bullmq';
import { NOOP_TRACER, type Tracer } from '@relay/service-kit';
import type { Logger } from 'pino';
import { consumedShards, type WorkerConfig } from './config';
import { createDeliverProcessor } from './deliver.processor';
import { createDeliveryStore } from './delivery-store';
import { createDeliveryPacing } from './delivery-pacing';
import { createDeliveryTransform } from './delivery-transform';
import { createFanOut } from './destination-fan-out';
import { createDestinationProcessor } from './destination.processor';
import { createDestinationStore } from './destination-store';
import { createWorkerFairness } from './fair-gate';
import { createHookDispatcher } from './hook-dispatch';
import { createHookProcessor } from './hook.processor';
import { createRuleHealth } from './rule-health';
import { createOrderGate, createOrderHandoff } from './ordered-delivery';
import { createRuleLookup } from './rule-lookup';
import { createSecretLookup } from './signing-secrets';
import { createSender } from './sender';
import { parseProxyUrl } from './outbound-proxy';
import { createSearchIndexer } from './search-indexer';
import { startMaintenanceWorker } from './maintenance-worker';
import { startRetention } from './retention/start-retention';
import { startPartitions } from './partitions/start-partitions';
import { startNotifications } from './notifications/start-notifications';
import { moveUntaggedAtStart } from './untagged-move';
import type { Notifier } from './notifications/notifier';
import type { DigestTotals } from './notifications/failure-digest';
import { createWorkerMetrics, type WorkerMetrics } from './metrics/worker-metrics';
import type { RetentionTotals } from './retention/retention-run';
import { createSweeper } from './sweeper';

export interface WorkerRuntime {
  health: { checks: Record<string, () => Promise<void>>; isShuttingDown: () => boolean };
  /** This process's Prometheus registry, served at /metrics on the health port (health-server.ts). */
  metrics: WorkerMetrics;
  sweepNow(): Promise<{ full: boolean; enqueued: number }>;
  /** Indexes every event still pending search indexing; resolves with how many. */
  indexSearchNow(): Promise<number>;
  /** One retention run now (as the schedule would); `at` stands in for the clock that decides what is old. */
  retentionNow(at?: Date): Promise<RetentionTotals>;
  /** Queues a notice to an organization's notification URL (what deliveries call on rule.unhealthy). */
  notify: Notifier;
  /** One failure-digest run now (as the schedule would); `at` stands in for the clock. */
  digestNow(at?: Date): Promise<DigestTotals>;
  /** Stops taking jobs, lets in-flight deliveries finish, closes every connection; a second call awaits the first. */
  close(): Promise<void>;
}

/** Wires a delivery-worker process from its settings: used by main.ts and by tests alike. */
export function createWorkerRuntime(
  config: WorkerConfig,
  logger: Logger,
  /** Traces (docs/observability.md): main.ts's tracer, the no-op one unless an OTLP endpoint is set. */
  options: { tracer?: Tracer } = {},
): WorkerRuntime {
  const tracing = { tracer: options.tracer ?? NOOP_TRACER, propagate: config.TRACE_PROPAGATE_TO_TARGETS };
  const db = createDatabase({
    url: config.DATABASE_URL,
    poolSize: config.DATABASE_POOL_SIZE,
    onPoolError: (err) => logger.warn({ err }, 'postgres pool error'),
  });
  const targetPolicy = {
    allowPrivate: config.TARGET_ALLOW_PRIVATE,
    allowlist: parseAllowlist(config.TARGET_ALLOWLIST),
    allowedPorts: parsePortPolicy(config.TARGET_ALLOWED_PORTS),
  };
  const ruleRepository = createRuleRepository(db.prisma);
  const sender = createSender({
    timeoutMs: config.DELIVERY_TIMEOUT_MS,
    policy: targetPolicy,
    proxy: config.OUTBOUND_PROXY_URL ? (parseProxyUrl(config.OUTBOUND_PROXY_URL) ?? undefined) : undefined,
  });
  const events = createEventRepository(db.pool, { defaultTargetUrl: config.DEFAULT_TARGET_URL });
  const rules = createRuleLookup(ruleRepository, { cacheMs: config.RULE_CACHE_MS });
  const secretFor = createSecretLookup(rules, config.DEFAULT_SIGNING_SECRET, config.SECRET_ENCRYPTION_KEYS);
  const hooks = createHookRepository(db.prisma);
  const retry = {
    maxAttempts: config.DELIVERY_MAX_ATTEMPTS,
    backoffBaseMs: config.DELIVERY_BACKOFF_BASE_MS,
    backoffMaxMs: config.DELIVERY_BACKOFF_MAX_MS,
    retryAfterMaxMs: config.RETRY_AFTER_MAX_MS,
  };
  // Each role's Redis (REDIS_QUEUE_URL, REDIS_CACHE_URL, REDIS_FEED_URL, else the main one): one producer
  // connection per distinct Redis. `producerRedis` is the queue's (the sweeper's epoch lives beside the queue).
  const producers = createRoleConnections(config.REDIS, 'producer');
  const producerRedis = producers.queue;
  const shards = config.REDIS_QUEUE_SHARDS;
  const hookQueue = createHookQueue({ connection: producerRedis, prefix: config.QUEUE_PREFIX, shards });
  const feed = createFeedPublisher({
    redis: producers.feed,
    prefix: config.QUEUE_PREFIX,
    onError: (err) => logger.debug({ err }, 'live feed publish failed'),
  });
  // A rule that turns unhealthy is forgotten by every worker at once, this one included (rule-changes.ts).
  const ruleChanges = createRuleChangePublisher({
    redis: producers.feed,
    prefix: config.QUEUE_PREFIX,
    onError: (err) => logger.warn({ err }, 'rule change not published; other workers learn it within RULE_CACHE_MS'),
  });
  // A worker connection: the subscription waits for Redis however long it is away, and ioredis renews it.
  const ruleChangeRedis = createRedisConnection(config.REDIS.feed, 'worker');
  const ruleChangesHeard = subscribeRuleChanges({
    redis: ruleChangeRedis,
    prefix: config.QUEUE_PREFIX,
    onChange: ({ orgId, ruleId }) => {
      rules.forget(orgId, ruleId);
      fanOut.forget(orgId, ruleId);
    },
  }).catch((err: unknown) => logger.warn({ err }, 'rule changes not subscribed; rules apply within RULE_CACHE_MS'));
  // Released ordering keys' next events get their jobs (ordered-delivery.ts; `handoff` is made with the queue).
  const store = createDeliveryStore(events, feed, undefined, (heads) => handoff.handOff(heads));
  // This process's Prometheus registry; queue depths are read from Redis when scraped.
  const metrics = createWorkerMetrics({
    organizationLabels: config.METRICS_ORGANIZATION_LABELS,
    pool: db.pool,
    queues: () => [...queue.queues, ...hookQueue.queues],
  });
  // Routing's destinations: fanned out by prepare, each delivery a job of the delivery queue (`queue`, below).
  const deliveries = createDeliveryRepository(db.pool);
  // Destination deliveries in flight fan out, load and record in batches (destination-store.ts).
  const destinationStore = createDestinationStore(deliveries);
  const fanOut = createFanOut({
    destinations: createDestinationRepository(db.prisma),
    deliveries: { fanOut: destinationStore.fanOut },
    enqueue: (requests) => queue.enqueueDestinations(requests),
    handOff: (heads) => deliveryHandoff.handOff(heads),
    feed,
    cacheMs: config.RULE_CACHE_MS,
    logger,
  });
  const faults = { maxDefers: config.DELIVERY_FAULT_MAX_DEFERS, deferMs: config.DELIVERY_FAULT_DEFER_MS };
  // One transform sandbox pool per process (docs/transformations.md): threads start on first use, so a relay whose
  // rules have no transform pays nothing.
  const transformRunner = createTransformRunner({
    timeoutMs: config.TRANSFORM_TIMEOUT_MS,
    memoryMb: config.TRANSFORM_MEMORY_MB,
    concurrency: config.TRANSFORM_CONCURRENCY,
    maxOutputBytes: config.INGEST_MAX_BODY_BYTES,
  });
  const transform = createDeliveryTransform(transformRunner);
  // One pacing limiter per process (docs/rules.md "Pacing"): commands on the producer connection, which fails fast
  // while Redis is away (a paced delivery is then deferred as any relay fault), holds heard on a subscriber of its
  // own. Unpaced, unheld keys cost no Redis command.
  const pacingRedis = createRedisConnection(config.REDIS.cache, 'subscriber');
  const limiter = createPacingLimiter({
    redis: producers.cache,
    subscriber: pacingRedis,
    prefix: config.QUEUE_PREFIX,
    retryAfterMaxMs: config.RETRY_AFTER_MAX_MS,
    leaseTtlMs: Math.max(300_000, 4 * config.DELIVERY_TIMEOUT_MS),
    onWait: (key, reason) => metrics.pacedWait(key, reason),
  });
  const pacingStarted = limiter
    .start()
    .catch((err: unknown) => logger.warn({ err }, 'pacing holds not subscribed; this worker knows its own holds only'));
  const pacing = createDeliveryPacing(limiter, logger);
  const consumed = consumedShards(config);
  const fairness = createWorkerFairness(config, consumed.length);
  const notifications = startNotifications(config, { db, producer: producerRedis, sender, targetPolicy, logger });
  const deliverDeps = {
    store,
    secretFor,
    rules,
    order: createOrderGate({ rules, ordering: createEventOrderingRepository(db.pool) }),
    notify: notifications.notify,
    health: createRuleHealth({
      repository: createRuleHealthRepository(db.pool),
      unhealthyAfterSeconds: config.RULE_UNHEALTHY_AFTER_SECONDS,
      feed,
      turned: async (orgId: OrgId, ruleId: string) => {
        rules.forget(orgId, ruleId);
        await ruleChanges.publish({ orgId, ruleId });
      },
      logger,
    }),
    targets: createTargetResolver(db.pool, { defaultTargetUrl: config.DEFAULT_TARGET_URL }),
    dispatchHooks: createHookDispatcher({ hooks, queue: hookQueue, logger }),
    sender,
    retry,
    targetPolicy,
    logger,
    faults,
    fanOut,
    metrics: metrics.delivery,
    transforms: {
      run: transform,
      store: (orgId: OrgId, id: string, output: NewTransform) => store.storeTransformed({ orgId, id }, output),
    },
    pacing,
    tracing,
  };
  const destinationDeps = {
    deliveries: { ...deliveries, load: destinationStore.load, record: destinationStore.record },
    loadEvent: (orgId: OrgId, id: string) => store.load({ orgId, id }),
    sender,
    targetPolicy,
    retry,
    defaultSecret: config.DEFAULT_SIGNING_SECRET,
    keys: config.SECRET_ENCRYPTION_KEYS,
    unhealthyAfterSeconds: config.RULE_UNHEALTHY_AFTER_SECONDS,
    notify: notifications.notify,
    feed,
    handOff: (heads: Parameters<typeof deliveryHandoff.handOff>[0]) => deliveryHandoff.handOff(heads),
    metrics: metrics.delivery,
    transform,
    pacing,
    logger,
    faults,
    tracing,
  };
  // Deliveries in progress: background search indexing yields while a quarter of the slots are busy.
  let activeDeliveries = 0;
  // Deliveries started so far: search indexing drains a backlog at once only while none start (search-indexer.ts).
  let startedDeliveries = 0;
  // One BullMQ worker per queue shard this process consumes (WORKER_QUEUE_SHARDS, default every shard); each takes
  // its blocking connection from the shared one (BullMQ duplicates it), and each has its own fair share of the pool.
  const workerRedis = createRedisConnection(config.REDIS.queue, 'worker');
  const workers = consumed.map((shard) => {
    const fair = fairness.shard();
    const deliver = createDeliverProcessor({ ...deliverDeps, fairGate: fair.gate });
    const deliverToDestination = createDestinationProcessor({ ...destinationDeps, fairGate: fair.gate });
    const processor = async (job: Job<DeliverJobData | DestinationJobData>, token?: string): Promise<string> => {
      activeDeliveries++;
      startedDeliveries++;
      try {
        // One queue, two job kinds: an event's primary delivery, or one of its destination deliveries.
        if (job.name === JOBS.deliverDestination)
          return await deliverToDestination(job as Job<DestinationJobData>, token);
        return await deliver(job as Job<DeliverJobData>, token);
      } finally {
        activeDeliveries--;
      }
    };
    const worker = new Worker<DeliverJobData | DestinationJobData>(QUEUES.delivery, processor, {
      connection: workerRedis,
      prefix: deliveryQueuePrefix(config.QUEUE_PREFIX, shard),
      // The shard's part of the pool and its reserve, through which other targets' events are seen (fair-share.ts).
      concurrency: fairness.jobsPerShard,
      lockDuration: config.WORKER_LOCK_DURATION_MS,
      stalledInterval: config.WORKER_STALLED_INTERVAL_MS,
      // A job whose worker died is handed to another worker instead of being failed.
      maxStalledCount: 1_000,
    });
    worker.on('error', (err) => logger.warn({ err, shard }, 'worker connection error'));
    fair.attach(worker);
    return worker;
  });

  // Hooks have their own queue and concurrency, so slow hook targets never hold delivery slots.
  const hookRedis = createRedisConnection(config.REDIS.queue, 'worker');
  const hookProcessor = createHookProcessor({
    events,
    hooks,
    attempts: createAttemptRepository(db.prisma),
    feed,
    sender,
    secretFor,
    retry,
    targetPolicy,
    logger,
    faults,
    onResult: (result) => metrics.hookRun(result),
    tracing,
  });
  const hookWorkers = consumed.map((shard) => {
    const hookWorker = new Worker<HookJobData>(QUEUES.hooks, hookProcessor, {
      connection: hookRedis,
      prefix: hookQueuePrefix(config.QUEUE_PREFIX, shard),
      concurrency: Math.max(1, Math.ceil(config.HOOK_CONCURRENCY / consumed.length)),
      lockDuration: config.WORKER_LOCK_DURATION_MS,
      stalledInterval: config.WORKER_STALLED_INTERVAL_MS,
      maxStalledCount: 1_000,
    });
    hookWorker.on('error', (err) => logger.warn({ err, shard }, 'hook worker connection error'));
    return hookWorker;
  });

  const queue = createDeliveryQueue({ connection: producerRedis, prefix: config.QUEUE_PREFIX, shards });
  const handoff = createOrderHandoff({ queue, logger });
  // Each destination's order (routing): released keys' next deliveries get their jobs the same way.
  const deliveryHandoff = createOrderHandoff({ queue, logger, heads: 'deliveries' });
  const sweeper = createSweeper({
    sweep: createEventSweepRepository(db.prisma),
    deliveries,
    queue,
    redis: producerRedis,
    prefix: config.QUEUE_PREFIX,
    graceMs: config.SWEEP_GRACE_MS,
    logger,
  });
  const sweepOnce = async () => {
    const result = await sweeper.runOnce();
    metrics.swept(result);
    return result;
  };
  let sweeping: Promise<unknown> = Promise.resolve();
  const sweep = () => {
    sweeping = sweepOnce().catch((err: unknown) => logger.warn({ err }, 'sweep failed; will try again'));
    return sweeping;
  };
  const timer = setInterval(() => void sweep(), config.SWEEP_INTERVAL_MS);
  // The first sweep runs as soon as Redis answers (producers do not queue commands while offline).
  if (producerRedis.status === 'ready') void sweep();
  else producerRedis.once('ready', () => void sweep());

  const indexer = createSearchIndexer({
    search: createEventSearchRepository(db.pool, config.SENSITIVE_HEADERS),
    logger,
    batchSize: config.SEARCH_INDEX_BATCH,
    busy: () => activeDeliveries >= Math.max(1, config.DELIVERY_CONCURRENCY / 4),
    started: () => startedDeliveries,
    maxPendingWhileBusy: config.SEARCH_INDEX_MAX_PENDING,
  });
  const stopIndexer = indexer.start(config.SEARCH_INDEX_INTERVAL_MS);
  const retention = startRetention(config, {
    db,
    producer: producerRedis,
    logger,
    metrics: metrics.retention,
  });
  const partitions = startPartitions(config, { db, producer: producerRedis, logger, metrics: metrics.partitions });
  // Once at start, so partitions exist (and the metric has a value) without waiting for the first hourly slot.
  const partitionsAtStart = partitions
    .runNow({ analyzeIfDue: false })
    .catch((err: unknown) => logger.warn({ err }, 'partitions not ensured at start; the hourly job tries again'));
  // Hook jobs and notices an older release left under untagged keys run again (untagged-move.ts).
  const movingUntagged = moveUntaggedAtStart({
    connection: producerRedis,
    prefix: config.QUEUE_PREFIX,
    hookQueue,
    logger,
  });
  // The maintenance queue's one worker: each job name to its handler (maintenance-worker.ts).
  const maintenanceRedis = createRedisConnection(config.REDIS.queue, 'worker');
  const maintenance = startMaintenanceWorker({
    connection: maintenanceRedis,
    prefix: config.QUEUE_PREFIX,
    handlers: {
      [JOBS.retention]: () => retention.runNow(),
      [JOBS.notice]: (job) => notifications.sendNotice(job as Job<NoticeJobData>),
      [JOBS.failureDigest]: () => notifications.digestNow(),
      [JOBS.partitions]: () => partitions.runNow(),
    },
    logger,
    lockDurationMs: config.WORKER_LOCK_DURATION_MS,
    stalledIntervalMs: config.WORKER_STALLED_INTERVAL_MS,
  });

  let shuttingDown = false;
  let closing: Promise<void> | undefined;
  async function shutDown(): Promise<void> {
    shuttingDown = true;
    clearInterval(timer);
    await Promise.all([...workers, ...hookWorkers].map((worker) => worker.close()));
    // No delivery is in flight any more: the sandboxes and the holds' subscription can go.
    await transformRunner.close();
    await pacingStarted;
    pacingRedis.disconnect();
    await store.drain();
    await destinationStore.drain();
    await handoff.drain();
    await deliveryHandoff.drain();
    await sweeping;
    await movingUntagged;
    await stopIndexer();
    // Retention's run stops first, so the maintenance worker's close does not wait it out.
    await retention.close();
    await partitionsAtStart;
    await partitions.close();
    await maintenance.close();
    maintenanceRedis.disconnect();
    await notifications.close();
    await queue.close().catch(() => {});
    await hookQueue.close().catch(() => {});
    sender.close();
    workerRedis.disconnect();
    hookRedis.disconnect();
    ruleChangeRedis.disconnect();
    await ruleChangesHeard;
    for (const connection of producers.distinct) connection.disconnect();
    await db.close();
  }

  return {
    health: {
      checks: {
        database: () => db.ping(),
        // The queue's Redis, and the cache's and feed's when they are apart (pacing, live feed).
        redis: async () => {
          const others = producers.distinct.filter((connection) => connection !== producerRedis);
          await Promise.all([workerRedis, ...others].map((connection) => connection.ping()));
        },
      },
      isShuttingDown: () => shuttingDown,
    },
    metrics,
    sweepNow: sweepOnce,
    indexSearchNow: () => indexer.runOnce(),
    retentionNow: (at) => retention.runNow(at),
    notify: notifications.notify,
    digestNow: (at) => notifications.digestNow(at),
    // Safe to call again (a test's pipeline closes every worker it started): the second call waits for the first.
    close: () => (closing ??= shutDown()),
  };
}
