import { Redis } from 'ioredis';

export type RedisRole = 'producer' | 'worker' | 'subscriber';

// Producers fail fast while Redis is down (ingest still answers 202: the event is committed and the
// sweeper re-enqueues it), whereas workers wait and reconnect forever, as BullMQ requires. A pub/sub
// subscriber queues its SUBSCRIBE until connected (callers bound the wait) and resubscribes on reconnect.
export function createRedisConnection(url: string, role: RedisRole): Redis {
  const redis = new Redis(url, {
    maxRetriesPerRequest: role === 'worker' ? null : 1,
    enableOfflineQueue: role !== 'producer',
    connectTimeout: 2_000,
    retryStrategy: (times) => Math.min(times * 200, 2_000),
    lazyConnect: false,
  });
  // Connection errors are reported through readiness and enqueue failures; an unhandled 'error'
  // event would otherwise crash the process.
  redis.on('error', () => {});
  return redis;
}
