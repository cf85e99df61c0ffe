import { createHash } from 'node:crypto';
import type { RedisConnection } from '@relay/queue';
import { RedisStore, type RedisReply } from 'rate-limit-redis';

const isNoScript = (err: unknown) => err instanceof Error && /^NOSCRIPT/.test(err.message);

// rate-limit-redis loads its scripts once (SCRIPT LOAD) when the limiter is created and would keep failing if Redis
// was not reachable at that moment (the api's Redis connection queues nothing while offline). Here the script is only
// remembered by its SHA1, and EVALSHA falls back to EVAL (which caches it in Redis) when Redis does not know it yet
// or was restarted: every request costs one round trip, and a Redis outage heals by itself.
export function createRedisStore(redis: RedisConnection, prefix: string): RedisStore {
  const scripts = new Map<string, string>();
  const send = async (command: string, ...args: string[]): Promise<RedisReply> => {
    if (command === 'SCRIPT' && args[0] === 'LOAD' && args[1] !== undefined) {
      const sha = createHash('sha1').update(args[1]).digest('hex');
      scripts.set(sha, args[1]);
      return sha;
    }
    if (command === 'EVALSHA' && args[0] !== undefined) {
      const [sha, ...rest] = args;
      try {
        return (await redis.call('EVALSHA', sha, ...rest)) as RedisReply;
      } catch (err) {
        const script = scripts.get(sha);
        if (!isNoScript(err) || script === undefined) throw err;
        return (await redis.call('EVAL', script, ...rest)) as RedisReply;
      }
    }
    return (await redis.call(command, ...args)) as RedisReply;
  };
  return new RedisStore({ prefix, sendCommand: send });
}
