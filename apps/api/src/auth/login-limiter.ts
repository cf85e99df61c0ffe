import { createHash } from 'node:crypto';
import type { RedisClientType } from 'redis';

export interface LoginLimiterOptions {
  client: RedisClientType;
  prefix: string;
  maxPerUser: number;
  maxPerIp: number;
  windowSeconds: number;
}

export type LimitCheck = { ok: true } | { ok: false; retryAfterSeconds: number };

// Failed logins are counted in Redis (so every api process shares the count) per username + IP
// and per IP, each in a fixed window. Usernames are hashed: keys never hold what was typed.
export function createLoginLimiter(options: LoginLimiterOptions) {
  const keys = (username: string, ip: string) => {
    const user = createHash('sha256').update(`${username.toLowerCase()}\u0000${ip}`).digest('hex').slice(0, 32);
    return { user: `${options.prefix}:login:u:${user}`, ip: `${options.prefix}:login:ip:${ip}` };
  };
  return {
    async check(username: string, ip: string): Promise<LimitCheck> {
      const k = keys(username, ip);
      const [userCount, ipCount] = (await options.client.mGet([k.user, k.ip])).map((v) => Number(v ?? 0));
      const blocked = [
        userCount! >= options.maxPerUser ? k.user : null,
        ipCount! >= options.maxPerIp ? k.ip : null,
      ].filter((key): key is string => key !== null);
      if (blocked.length === 0) return { ok: true };
      const ttls = await Promise.all(blocked.map((key) => options.client.ttl(key)));
      return { ok: false, retryAfterSeconds: Math.max(1, ...ttls) };
    },
    async recordFailure(username: string, ip: string): Promise<void> {
      const k = keys(username, ip);
      await options.client
        .multi()
        .incr(k.user)
        .expire(k.user, options.windowSeconds, 'NX')
        .incr(k.ip)
        .expire(k.ip, options.windowSeconds, 'NX')
        .exec();
    },
    async reset(username: string, ip: string): Promise<void> {
      await options.client.del(keys(username, ip).user);
    },
  };
}

export type LoginLimiter = ReturnType<typeof createLoginLimiter>;
