import type { FeedMessage, OrgId } from '@relay/core';
import type { RedisConnection } from './redis-connection';

// The live feed: what happened to an organization's events, fanned out over Redis pub/sub so that
// every api process sees what any api or worker process did. It is best effort: a message lost
// while Redis is away is still in the database, where a client resuming with Last-Event-ID finds it.
//
// On a Redis Cluster it is sharded pub/sub (SPUBLISH, SSUBSCRIBE): an organization's channel lives on its slot's
// primary, which hears every publisher in the order their commands arrive. Classic PUBLISH goes to any node and
// crosses the cluster bus from there, so a worker's `delivered` could overtake the api's `queued` published before
// the job was even enqueued (the cluster suite's delivery-stream test saw it). One server or Sentinel: classic.

export const feedChannel = (prefix: string, orgId: OrgId) => `${prefix}:feed:${orgId}`;

export interface FeedPublisher {
  /** Never throws: a feed hiccup must not fail the write it reports. */
  publish(orgId: OrgId, messages: readonly FeedMessage[]): Promise<void>;
}

export function createFeedPublisher(options: {
  redis: RedisConnection;
  prefix: string;
  onError?: (err: unknown) => void;
}): FeedPublisher {
  return {
    async publish(orgId, messages) {
      if (messages.length === 0) return;
      // A batch is one PUBLISH (a JSON array): an ingest or outcome batch costs Redis one command.
      try {
        const channel = feedChannel(options.prefix, orgId);
        const payload = JSON.stringify(messages);
        await (options.redis.isCluster
          ? options.redis.spublish(channel, payload)
          : options.redis.publish(channel, payload));
      } catch (err) {
        options.onError?.(err);
      }
    },
  };
}

/** Publishes several organizations' messages at once (a batch spans organizations). */
export async function publishGrouped(
  feed: FeedPublisher,
  items: readonly { orgId: OrgId; message: FeedMessage }[],
): Promise<void> {
  const byOrg = new Map<OrgId, FeedMessage[]>();
  for (const { orgId, message } of items) {
    const list = byOrg.get(orgId);
    if (list) list.push(message);
    else byOrg.set(orgId, [message]);
  }
  await Promise.all([...byOrg].map(([orgId, messages]) => feed.publish(orgId, messages)));
}

export type FeedListener = (message: FeedMessage) => void;

export interface FeedSubscriber {
  /** Resolves once Redis confirmed the subscription; the returned function unsubscribes. */
  subscribe(orgId: OrgId, listener: FeedListener): Promise<() => void>;
  close(): Promise<void>;
}

// One subscriber connection per process, whatever the number of open streams: channels are
// reference-counted, subscribed on the first listener of an organization and dropped after the last.
export function createFeedSubscriber(options: { redis: RedisConnection; prefix: string }): FeedSubscriber {
  const listeners = new Map<string, Set<FeedListener>>();
  // The pending or done SUBSCRIBE of each channel, so a second stream waits for the first's too.
  const ready = new Map<string, Promise<unknown>>();
  // While the connection is down, a channel subscribed before looks subscribed but hears nothing until
  // Redis is back (ioredis then subscribes again): new listeners are refused at once (the stream answers 503).
  // While the first connection is being made they wait, as a SUBSCRIBE does.
  let down = false;
  options.redis.on('ready', () => (down = false));
  options.redis.on('close', () => (down = true));
  const sharded = options.redis.isCluster;
  options.redis.on(sharded ? 'smessage' : 'message', (channel: string, raw: string) => {
    const set = listeners.get(channel);
    if (!set) return;
    let messages: FeedMessage[];
    try {
      messages = JSON.parse(raw) as FeedMessage[];
    } catch {
      return;
    }
    if (!Array.isArray(messages)) return;
    for (const message of messages) for (const listener of set) listener(message);
  });
  return {
    async subscribe(orgId, listener) {
      if (down) throw new Error('live feed: Redis is not connected');
      const channel = feedChannel(options.prefix, orgId);
      let set = listeners.get(channel);
      if (!set) {
        set = new Set();
        listeners.set(channel, set);
      }
      set.add(listener);
      let pending = ready.get(channel);
      if (!pending) {
        pending = sharded ? options.redis.ssubscribe(channel) : options.redis.subscribe(channel);
        ready.set(channel, pending);
        pending.catch(() => ready.delete(channel));
      }
      try {
        await pending;
      } catch (err) {
        set.delete(listener);
        if (set.size === 0) listeners.delete(channel);
        throw err;
      }
      return () => {
        const current = listeners.get(channel);
        if (!current?.delete(listener) || current.size > 0) return;
        listeners.delete(channel);
        ready.delete(channel);
        void (sharded ? options.redis.sunsubscribe(channel) : options.redis.unsubscribe(channel)).catch(() => {});
      };
    },
    async close() {
      listeners.clear();
      ready.clear();
      options.redis.disconnect();
    },
  };
}
