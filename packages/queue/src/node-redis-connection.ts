import type { RedisTarget } from '@relay/core';
import { createClient, createCluster, createSentinel } from 'redis';

/** A script call as node-redis takes it: the keys (one slot on a cluster) and the arguments. */
export interface ScriptCall {
  keys: string[];
  arguments?: string[];
}

/**
 * What the relay asks of node-redis: Lua scripts (login limits, idempotency) and what connect-redis calls for a
 * session (get, set, expire, del of one key). The same for one server, a Sentinel-managed primary and a cluster.
 */
export interface NodeRedisClient {
  /** Connected and taking commands (a cluster: once its slot map is known). */
  readonly isReady: boolean;
  eval(script: string, call: ScriptCall): Promise<unknown>;
  get(key: string): Promise<string | null>;
  set(key: string, value: string, options?: object): Promise<unknown>;
  expire(key: string, seconds: number): Promise<unknown>;
  del(keys: string[]): Promise<unknown>;
  /** Connects, trying again until it succeeds or the client is closed (errors go to `onError`). */
  connect(onError: (err: unknown) => void): Promise<void>;
  close(): Promise<void>;
}

// The common part of node-redis's client, cluster and sentinel types, as this module uses it.
interface RawClient {
  readonly isOpen: boolean;
  readonly isReady?: boolean;
  eval(script: string, call: ScriptCall): Promise<unknown>;
  get(key: string): Promise<string | null>;
  set(key: string, value: string, options?: object): Promise<unknown>;
  expire(key: string, seconds: number): Promise<unknown>;
  del(keys: string[]): Promise<unknown>;
  connect(): Promise<unknown>;
  close(): Promise<void>;
  destroy(): unknown;
  on(event: 'error', listener: (err: unknown) => void): unknown;
}

export interface NodeRedisOptions {
  /** Longest wait for one command: while Redis is away a request fails after it instead of waiting for Redis. */
  commandTimeoutMs: number;
}

const socket = { connectTimeout: 2_000, reconnectStrategy: (retries: number) => Math.min(retries * 200, 2_000) };

function open(target: RedisTarget, options: NodeRedisOptions): RawClient {
  const commandOptions = { timeout: options.commandTimeoutMs };
  switch (target.kind) {
    case 'single':
      return createClient({ url: target.url, socket, commandOptions });
    case 'cluster':
      // Commands go to the owner of their first key's slot; MOVED and ASK (a failover, resharding) are followed.
      return createCluster({
        rootNodes: target.nodes.map(({ host, port }) => ({ socket: { host, port } })),
        defaults: { socket, ...(target.password ? { password: target.password } : {}) },
        commandOptions,
      });
    case 'sentinel':
      // node-redis asks the sentinels for the primary and follows its changes (+switch-master) by itself.
      return createSentinel({
        name: target.name,
        sentinelRootNodes: target.sentinels,
        nodeClientOptions: { socket, ...(target.password ? { password: target.password } : {}) },
        sentinelClientOptions: { socket, ...(target.sentinelPassword ? { password: target.sentinelPassword } : {}) },
        commandOptions,
      });
  }
}

/** The relay's one way to a node-redis client (sessions, login limits, idempotency) of a role's Redis. */
export function createNodeRedisClient(target: RedisTarget, options: NodeRedisOptions): NodeRedisClient {
  let raw = open(target, options);
  // Connection errors surface through the commands that need Redis and /ready; node-redis reconnects by itself.
  raw.on('error', () => {});
  let closed = false;
  let connected = false;
  return {
    // A cluster has no isReady: it is open once connect() learnt the slots, and then follows failovers itself.
    get isReady() {
      return connected && (raw.isReady ?? raw.isOpen);
    },
    eval: (script, call) => raw.eval(script, call),
    get: (key) => raw.get(key),
    set: (key, value, setOptions) => raw.set(key, value, setOptions),
    expire: (key, seconds) => raw.expire(key, seconds),
    del: (keys) => raw.del(keys),
    async connect(onError) {
      // A first connect that finds no node (a cluster's slots, the sentinels' primary) is not retried by
      // node-redis: a new client tries again, so a relay started before its Redis serves once Redis is up.
      while (!closed) {
        try {
          await raw.connect();
          connected = true;
          return;
        } catch (err) {
          onError(err);
          if (raw.isOpen) raw.destroy();
          await new Promise((resolve) => setTimeout(resolve, 1_000));
          if (closed) return;
          raw = open(target, options);
          raw.on('error', () => {});
        }
      }
    },
    async close() {
      closed = true;
      // close() waits for queued commands to be answered, which never happens while Redis is away.
      if (raw.isReady ?? raw.isOpen) await raw.close().catch(() => {});
      else if (raw.isOpen) raw.destroy();
    },
  };
}
