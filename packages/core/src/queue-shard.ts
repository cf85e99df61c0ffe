// Sharded delivery queues (docs/operations.md "Queue shards"): with REDIS_QUEUE_SHARDS = N the delivery and hook
// queues are N BullMQ queues, each under its own Redis hash tag, so a Redis Cluster spreads them over its primaries.
// An event's shard is a hash of its rule (a destination delivery's, of its destination): one rule's or destination's
// jobs always share a queue, and with it the workers that consume it (their fairness and pacing state).

/** The most shards a relay may be split into: each is a BullMQ queue that every consuming worker polls. */
export const MAX_QUEUE_SHARDS = 256;

/**
 * The queue shard (0 … count − 1) of a rule or destination id. FNV-1a over the id's UTF-16 code units: stable across
 * processes, versions and platforms (never Node's hash seeds), so the api, every worker and the sweeper agree.
 * An event with no rule (the default target) passes `null` and lands on shard 0.
 */
export function queueShardOf(key: string | null, count: number): number {
  if (!Number.isInteger(count) || count < 1) throw new RangeError(`queue shard count must be >= 1, got ${count}`);
  if (count === 1 || key === null) return 0;
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    hash ^= key.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % count;
}

/**
 * WORKER_QUEUE_SHARDS: which shards a worker consumes, as `0,2` or ranges `0-3,6`. Unset (or blank) means every
 * shard of `count`. A shard past `count` is allowed: a worker that lists it drains what a larger shard count left
 * there. Answers the shards sorted, or an error message.
 */
export function parseQueueShardList(value: string | undefined, count: number): number[] | string {
  if (value === undefined || value.trim() === '') return Array.from({ length: count }, (_, i) => i);
  const shards = new Set<number>();
  for (const part of value.split(',').map((p) => p.trim())) {
    const match = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (!match) return `"${part}" is not a shard number or range (e.g. 0,2 or 0-3)`;
    const from = Number(match[1]);
    const to = match[2] === undefined ? from : Number(match[2]);
    if (to < from) return `"${part}" is an empty range`;
    if (to >= MAX_QUEUE_SHARDS) return `shard ${to} is past the most shards (${MAX_QUEUE_SHARDS})`;
    for (let shard = from; shard <= to; shard++) shards.add(shard);
  }
  return [...shards].sort((a, b) => a - b);
}
