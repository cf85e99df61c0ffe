import { z } from 'zod';
import { parseSettings } from './config-schema';
import { parseHostPorts, redisSettingFields, redisTargetsOf, sameRedisTarget } from './redis-settings';

// The shape both processes use: the fields, and each role's Redis derived from them.
const schema = z.object(redisSettingFields).transform((settings, ctx) => redisTargetsOf(settings, ctx));
const parse = (env: Record<string, string>) => parseSettings(schema, env);

describe('Redis settings', () => {
  it('uses REDIS_URL for every role by default', () => {
    const single = { kind: 'single', url: 'redis://127.0.0.1:6379' };
    expect(parse({})).toEqual({ queue: single, cache: single, feed: single });
  });

  it('prefers REDIS_CLUSTER_NODES over REDIS_URL, for every role without a URL of its own', () => {
    const targets = parse({
      REDIS_URL: 'redis://elsewhere:6379',
      REDIS_CLUSTER_NODES: '10.0.0.1:7000, 10.0.0.2:7001,[::1]:7002',
      REDIS_PASSWORD: 'pw',
    });
    const cluster = {
      kind: 'cluster',
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: '10.0.0.2', port: 7001 },
        { host: '::1', port: 7002 },
      ],
      password: 'pw',
    };
    expect(targets).toEqual({ queue: cluster, cache: cluster, feed: cluster });
  });

  it('prefers REDIS_SENTINELS over REDIS_URL', () => {
    const targets = parse({
      REDIS_SENTINELS: 's1:26379,s2:26379',
      REDIS_SENTINEL_NAME: 'relay',
      REDIS_SENTINEL_PASSWORD: 'spw',
    });
    expect(targets.queue).toEqual({
      kind: 'sentinel',
      sentinels: [
        { host: 's1', port: 26379 },
        { host: 's2', port: 26379 },
      ],
      name: 'relay',
      sentinelPassword: 'spw',
    });
    expect(sameRedisTarget(targets.queue, targets.feed)).toBe(true);
  });

  it('gives a role its own URL, the others keeping the main connection', () => {
    const targets = parse({
      REDIS_CLUSTER_NODES: 'node:7000',
      REDIS_CACHE_URL: 'redis://cache:6379/2',
      REDIS_FEED_URL: 'rediss://feed:6380',
    });
    expect(targets.queue).toEqual({ kind: 'cluster', nodes: [{ host: 'node', port: 7000 }] });
    expect(targets.cache).toEqual({ kind: 'single', url: 'redis://cache:6379/2' });
    expect(targets.feed).toEqual({ kind: 'single', url: 'rediss://feed:6380' });
    expect(sameRedisTarget(targets.queue, targets.cache)).toBe(false);
  });

  it('refuses a cluster and sentinels together, naming both settings', () => {
    expect(() =>
      parse({ REDIS_CLUSTER_NODES: 'a:7000', REDIS_SENTINELS: 'b:26379', REDIS_SENTINEL_NAME: 'relay' }),
    ).toThrow(/REDIS_CLUSTER_NODES: REDIS_CLUSTER_NODES and REDIS_SENTINELS are both set/);
  });

  it('refuses sentinels without a name, and a name without sentinels', () => {
    expect(() => parse({ REDIS_SENTINELS: 'b:26379' })).toThrow(
      /REDIS_SENTINEL_NAME: is required with REDIS_SENTINELS/,
    );
    expect(() => parse({ REDIS_SENTINEL_NAME: 'relay' })).toThrow(/REDIS_SENTINEL_NAME: is set but REDIS_SENTINELS/);
  });

  it('refuses malformed node lists and role URLs with the culprit named', () => {
    expect(() => parse({ REDIS_CLUSTER_NODES: 'a:7000,b' })).toThrow(/REDIS_CLUSTER_NODES: "b" is not host:port/);
    expect(() => parse({ REDIS_CLUSTER_NODES: 'a:70000' })).toThrow(/"a:70000" is not host:port/);
    expect(() => parse({ REDIS_CLUSTER_NODES: ' , ' })).toThrow(/must list at least one host:port/);
    expect(() => parse({ REDIS_QUEUE_URL: 'http://q:6379' })).toThrow(/REDIS_QUEUE_URL: must be a redis:\/\//);
  });

  it('parses host:port lists', () => {
    expect(parseHostPorts('h:1')).toEqual([{ host: 'h', port: 1 }]);
    expect(parseHostPorts('h:0')).toMatch(/not host:port/);
  });
});
