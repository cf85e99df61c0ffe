import { parseAllowlist } from '@relay/core';
import { createDatabase, createEventRepository, createEventSweepRepository, createProviderRepository, createTargetResolver } from '@relay/db';
import { createDeliveryQueue, createRedisConnection, QUEUES, type DeliverJobData } from '@relay/queue';
import { Worker } from 'bullmq';
import type { Logger } from 'pino';
import type { WorkerConfig } from './config';
import { createDeliverProcessor } from './deliver.processor';
import { createDeliveryStore } from './delivery-store';
import { createSender } from './sender';
import { createSweeper } from './sweeper';

export interface WorkerRuntime {
  health: { checks: Record<string, () => Promise<void>>; isShuttingDown: () => boolean };
  sweepNow(): Promise<{ full: boolean; enqueued: number }>;
  /** Stops taking jobs, lets in-flight deliveries finish, closes every connection. */
  close(): Promise<void>;
}

/** Wires a delivery-worker process from its settings: used by main.ts and by tests alike. */
export function createWorkerRuntime(config: WorkerConfig, logger: Logger): WorkerRuntime {
  const db = createDatabase({ url: config.DATABASE_URL, poolSize: config.DATABASE_POOL_SIZE, onPoolError: (err) => logger.warn({ err }, 'postgres pool error') });
  const targetPolicy = { allowPrivate: config.TARGET_ALLOW_PRIVATE, allowlist: parseAllowlist(config.TARGET_ALLOWLIST) };
  const providers = createProviderRepository(db.prisma);
  const sender = createSender({ timeoutMs: config.DELIVERY_TIMEOUT_MS, policy: targetPolicy });
  const store = createDeliveryStore(createEventRepository(db.pool, { defaultTargetUrl: config.DEFAULT_TARGET_URL }));
  const processor = createDeliverProcessor({
    store,
    providers,
    targets: createTargetResolver(db.pool, { defaultTargetUrl: config.DEFAULT_TARGET_URL }),
    sender,
    retry: {
      maxAttempts: config.DELIVERY_MAX_ATTEMPTS,
      backoffBaseMs: config.DELIVERY_BACKOFF_BASE_MS,
      backoffMaxMs: config.DELIVERY_BACKOFF_MAX_MS,
      retryAfterMaxMs: config.RETRY_AFTER_MAX_MS,
    },
    targetPolicy,
    defaultSigningSecret: config.DEFAULT_SIGNING_SECRET,
    logger,
  });

  const workerRedis = createRedisConnection(config.REDIS_URL, 'worker');
  const worker = new Worker<DeliverJobData>(QUEUES.delivery, processor, {
    connection: workerRedis,
    prefix: config.QUEUE_PREFIX,
    concurrency: config.DELIVERY_CONCURRENCY,
    lockDuration: config.WORKER_LOCK_DURATION_MS,
    stalledInterval: config.WORKER_STALLED_INTERVAL_MS,
    // A job whose worker died is handed to another worker instead of being failed.
    maxStalledCount: 1_000,
  });
  worker.on('error', (err) => logger.warn({ err }, 'worker connection error'));

  const producerRedis = createRedisConnection(config.REDIS_URL, 'producer');
  const queue = createDeliveryQueue({ connection: producerRedis, prefix: config.QUEUE_PREFIX });
  const sweeper = createSweeper({
    sweep: createEventSweepRepository(db.prisma),
    queue,
    redis: producerRedis,
    prefix: config.QUEUE_PREFIX,
    graceMs: config.SWEEP_GRACE_MS,
    logger,
  });
  let sweeping: Promise<unknown> = Promise.resolve();
  const sweep = () => {
    sweeping = sweeper.runOnce().catch((err: unknown) => logger.warn({ err }, 'sweep failed; will try again'));
    return sweeping;
  };
  const timer = setInterval(() => void sweep(), config.SWEEP_INTERVAL_MS);
  // The first sweep runs as soon as Redis answers (producers do not queue commands while offline).
  if (producerRedis.status === 'ready') void sweep();
  else producerRedis.once('ready', () => void sweep());

  let shuttingDown = false;
  return {
    health: {
      checks: { database: () => db.ping(), redis: async () => void (await workerRedis.ping()) },
      isShuttingDown: () => shuttingDown,
    },
    sweepNow: () => sweeper.runOnce(),
    async close() {
      shuttingDown = true;
      clearInterval(timer);
      await worker.close();
      await store.drain();
      await sweeping;
      await queue.close().catch(() => {});
      sender.close();
      workerRedis.disconnect();
      producerRedis.disconnect();
      await db.close();
    },
  };
}
