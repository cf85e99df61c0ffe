import { queueShardOf } from '@relay/core';
import { Queue } from 'bullmq';
import type { RedisConnection } from './redis-connection';

// Every BullMQ script touches several keys of its queue, so on a Redis Cluster a queue's keys must share one slot
// (CROSSSLOT otherwise, bullmq#906): the BullMQ prefix is a hash tag, `{relay:dlv:0}`, so the slot is the tag's.
// One tag per queue shard, so N shards spread over the cluster's primaries (one tag for all would leave every other
// primary idle, bull#1499). Single Redis uses the same keys: one layout everywhere.

/** The BullMQ prefix of delivery queue shard `shard` (deliveries and destination deliveries). */
export const deliveryQueuePrefix = (prefix: string, shard: number) => `{${prefix}:dlv:${shard}}`;
/** The BullMQ prefix of hook queue shard `shard`. */
export const hookQueuePrefix = (prefix: string, shard: number) => `{${prefix}:hook:${shard}}`;
/** The BullMQ prefix of the maintenance queue (retention, notices, the digest): little traffic, one shard. */
export const maintenanceQueuePrefix = (prefix: string) => `{${prefix}:mnt}`;

/** One BullMQ queue per shard, each job routed by its rule's or destination's shard (queueShardOf). */
export function createShardedQueues<T>(
  name: string,
  options: { connection: RedisConnection; shards?: number; prefixOf: (shard: number) => string },
) {
  const count = options.shards ?? 1;
  const queues = Array.from({ length: count }, (_, shard) => {
    const queue = new Queue<T>(name, {
      connection: options.connection,
      prefix: options.prefixOf(shard),
    });
    // The queue's errors are its connection's, which redis-connection.ts already absorbs; enqueue
    // failures reach the caller as rejected promises.
    queue.on('error', () => {});
    return queue;
  });
  return {
    /** The shards' queues, by shard number. */
    queues: queues as readonly Queue<T>[],
    /** The queue of a rule or destination id (null: an event without a rule). */
    queueOf: (key: string | null) => queues[queueShardOf(key, count)]!,
    /** Groups items by their shard: one addBulk per shard (a bulk add is one slot's script). */
    byShard<I>(items: readonly I[], keyOf: (item: I) => string | null): Array<[Queue<T>, I[]]> {
      const groups = new Map<number, I[]>();
      for (const item of items) {
        const shard = queueShardOf(keyOf(item), count);
        const group = groups.get(shard);
        if (group) group.push(item);
        else groups.set(shard, [item]);
      }
      return [...groups].map(([shard, group]) => [queues[shard]!, group]);
    },
    close: async () => void (await Promise.all(queues.map((queue) => queue.close()))),
  };
}
