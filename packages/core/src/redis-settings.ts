import type { z } from 'zod';
import { optionalText, text } from './config-schema';

/** One server address of a cluster or a Sentinel set. */
export interface RedisHostPort {
  host: string;
  port: number;
}

/** Where one role's Redis is: one server (a URL), a Redis Cluster, or a primary managed by Sentinel. */
export type RedisTarget =
  | { kind: 'single'; url: string }
  | { kind: 'cluster'; nodes: RedisHostPort[]; password?: string }
  | { kind: 'sentinel'; sentinels: RedisHostPort[]; name: string; password?: string; sentinelPassword?: string };

/**
 * The Redis of each role: BullMQ queues (and what lives beside them: the sweeper's epoch), the cache (sessions,
 * login and rate limiters, quotas, idempotency keys, pacing) and the live feed's pub/sub (and rule changes).
 */
export interface RedisTargets {
  queue: RedisTarget;
  cache: RedisTarget;
  feed: RedisTarget;
}

/** The Redis settings every process reads, the same names in the api and the worker. */
export const redisSettingFields = {
  REDIS_URL: text('redis://127.0.0.1:6379'),
  // host:port,host:port,…: a Redis Cluster (any of its nodes, the client finds the rest). Wins over REDIS_URL.
  REDIS_CLUSTER_NODES: optionalText(),
  // host:port,…: the sentinels watching the primary named REDIS_SENTINEL_NAME. Wins over REDIS_URL.
  REDIS_SENTINELS: optionalText(),
  REDIS_SENTINEL_NAME: optionalText(),
  // The data servers' password (cluster nodes, Sentinel-managed servers; REDIS_URL carries its own).
  REDIS_PASSWORD: optionalText(),
  // The sentinels' own password, when they require one.
  REDIS_SENTINEL_PASSWORD: optionalText(),
  // One role on a Redis of its own (a URL); unset, the role uses the main connection above.
  REDIS_QUEUE_URL: optionalText(),
  REDIS_CACHE_URL: optionalText(),
  REDIS_FEED_URL: optionalText(),
};

type RedisSettings = { [K in keyof typeof redisSettingFields]: z.output<(typeof redisSettingFields)[K]> };

type Issue = { path: string; message: string };

/** `host:port,host:port` (an IPv6 host in brackets), or the issue with it. */
export function parseHostPorts(value: string): RedisHostPort[] | string {
  const items = value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  if (items.length === 0) return 'must list at least one host:port';
  const parsed: RedisHostPort[] = [];
  for (const item of items) {
    const match = /^(?:\[([^\]]+)\]|([^:[\]\s]+)):(\d{1,5})$/.exec(item);
    const port = Number(match?.[3]);
    if (!match || port < 1 || port > 65_535) return `"${item}" is not host:port (a port from 1 to 65535)`;
    parsed.push({ host: (match[1] ?? match[2])!, port });
  }
  return parsed;
}

const isRedisUrl = (value: string) => {
  try {
    return ['redis:', 'rediss:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
};

function mainTarget(settings: RedisSettings, issues: Issue[]): RedisTarget {
  const { REDIS_CLUSTER_NODES: clusterNodes, REDIS_SENTINELS: sentinels, REDIS_SENTINEL_NAME: name } = settings;
  const password = settings.REDIS_PASSWORD;
  if (clusterNodes !== undefined && sentinels !== undefined) {
    issues.push({
      path: 'REDIS_CLUSTER_NODES',
      message:
        'REDIS_CLUSTER_NODES and REDIS_SENTINELS are both set: the relay uses a Redis Cluster or a Sentinel-managed ' +
        'primary, never both (unset one of them)',
    });
  }
  if (name !== undefined && sentinels === undefined) {
    issues.push({ path: 'REDIS_SENTINEL_NAME', message: 'is set but REDIS_SENTINELS is not (list the sentinels)' });
  }
  if (clusterNodes !== undefined) {
    const nodes = parseHostPorts(clusterNodes);
    if (typeof nodes === 'string') issues.push({ path: 'REDIS_CLUSTER_NODES', message: nodes });
    else return { kind: 'cluster', nodes, ...(password ? { password } : {}) };
  } else if (sentinels !== undefined) {
    const parsed = parseHostPorts(sentinels);
    if (typeof parsed === 'string') issues.push({ path: 'REDIS_SENTINELS', message: parsed });
    if (name === undefined) {
      issues.push({ path: 'REDIS_SENTINEL_NAME', message: 'is required with REDIS_SENTINELS (the monitored name)' });
    }
    if (typeof parsed !== 'string' && name !== undefined) {
      const sentinelPassword = settings.REDIS_SENTINEL_PASSWORD;
      return {
        kind: 'sentinel',
        sentinels: parsed,
        name,
        ...(password ? { password } : {}),
        ...(sentinelPassword ? { sentinelPassword } : {}),
      };
    }
  }
  return { kind: 'single', url: settings.REDIS_URL };
}

/**
 * Each role's Redis from the settings: a role's own URL, else the main connection (REDIS_CLUSTER_NODES, else
 * REDIS_SENTINELS, else REDIS_URL). For a schema's `transform`: bad settings become issues named by setting.
 */
export function redisTargetsOf(settings: RedisSettings, ctx: z.RefinementCtx): RedisTargets {
  const issues: Issue[] = [];
  const main = mainTarget(settings, issues);
  const role = (name: 'REDIS_QUEUE_URL' | 'REDIS_CACHE_URL' | 'REDIS_FEED_URL'): RedisTarget => {
    const url = settings[name];
    if (url === undefined) return main;
    if (!isRedisUrl(url)) issues.push({ path: name, message: 'must be a redis:// or rediss:// URL' });
    return { kind: 'single', url };
  };
  const targets = { queue: role('REDIS_QUEUE_URL'), cache: role('REDIS_CACHE_URL'), feed: role('REDIS_FEED_URL') };
  for (const issue of issues) ctx.addIssue({ code: 'custom', path: [issue.path], message: issue.message });
  return targets;
}

/** Whether two roles share one Redis (and so may share a connection). */
export const sameRedisTarget = (a: RedisTarget, b: RedisTarget) => JSON.stringify(a) === JSON.stringify(b);
