import { sameRedisTarget, type RedisTarget, type RedisTargets } from '@relay/core';
import { Cluster, Redis, type RedisOptions } from 'ioredis';

export type RedisRole = 'producer' | 'worker' | 'subscriber';

/** An ioredis connection to one server, a Sentinel-managed primary, or a Redis Cluster. */
export type RedisConnection = Redis | Cluster;

// Producers fail fast while Redis is down (ingest still answers 202: the event is committed and the
// sweeper re-enqueues it), whereas workers wait and reconnect forever, as BullMQ requires. A pub/sub
// subscriber queues its SUBSCRIBE until connected (callers bound the wait) and resubscribes on reconnect.
const roleOptions = (role: RedisRole) => ({
  maxRetriesPerRequest: role === 'worker' ? null : 1,
  enableOfflineQueue: role !== 'producer',
});

const retry = (times: number) => Math.min(times * 200, 2_000);

// A Sentinel failover demotes the old primary: its writes answer READONLY until the client moves. ioredis then
// reconnects, asks the sentinels again and resends the command (2: reconnect and retry).
const reconnectOnReadonly = (err: Error) => (err.message.startsWith('READONLY') ? 2 : false);

function connect(target: RedisTarget, role: RedisRole): RedisConnection {
  const common: RedisOptions = {
    ...roleOptions(role),
    connectTimeout: 2_000,
    retryStrategy: retry,
    lazyConnect: false,
  };
  switch (target.kind) {
    case 'single':
      return new Redis(target.url, common);
    case 'sentinel':
      return new Redis({
        ...common,
        sentinels: target.sentinels,
        name: target.name,
        password: target.password,
        sentinelPassword: target.sentinelPassword,
        // The sentinels announce a new primary (+switch-master): move at once, not when the old one drops us.
        failoverDetector: true,
        reconnectOnError: reconnectOnReadonly,
        sentinelRetryStrategy: retry,
      });
    case 'cluster':
      return new Cluster(target.nodes, {
        // BullMQ reads maxRetriesPerRequest from the cluster's redisOptions (workers: null, blocking waits).
        redisOptions: { ...roleOptions(role), connectTimeout: 2_000, password: target.password },
        enableOfflineQueue: role !== 'producer',
        clusterRetryStrategy: retry,
        // A node's failover takes the cluster node timeout: commands wait for the new slot owner meanwhile.
        retryDelayOnFailover: 200,
        retryDelayOnClusterDown: 200,
        // The live feed is sharded pub/sub on a cluster (event-feed.ts): one subscriber per primary, each moved
        // with its slots on a failover.
        shardedSubscribers: role === 'subscriber',
      });
  }
}

/**
 * One connection of `role` to a role's Redis (a URL is one server). Every ioredis client of the relay comes from
 * here; node-redis ones (sessions, login limits, idempotency) from createNodeRedisClient.
 */
export function createRedisConnection(url: string, role: RedisRole): Redis;
export function createRedisConnection(target: RedisTarget, role: RedisRole): RedisConnection;
export function createRedisConnection(target: RedisTarget | string, role: RedisRole): RedisConnection {
  const redis = connect(typeof target === 'string' ? { kind: 'single', url: target } : target, role);
  // Connection errors are reported through readiness and enqueue failures; an unhandled 'error'
  // event would otherwise crash the process.
  redis.on('error', () => {});
  return redis;
}

/** One connection of `role` per role's Redis: roles that share a Redis (the default: all) share the connection. */
export interface RoleConnections {
  queue: RedisConnection;
  cache: RedisConnection;
  feed: RedisConnection;
  /** Each distinct connection once (readiness pings, shutdown). */
  distinct: RedisConnection[];
}

export function createRoleConnections(targets: RedisTargets, role: RedisRole): RoleConnections {
  const made: Array<{ target: RedisTarget; redis: RedisConnection }> = [];
  const of = (target: RedisTarget) => {
    const found = made.find((entry) => sameRedisTarget(entry.target, target));
    if (found) return found.redis;
    const redis = createRedisConnection(target, role);
    made.push({ target, redis });
    return redis;
  };
  const roles = { queue: of(targets.queue), cache: of(targets.cache), feed: of(targets.feed) };
  return { ...roles, distinct: made.map((entry) => entry.redis) };
}
