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

/** What a secret guards: a user's password (session login and HTTP Basic share it) or the bootstrap token. */
export type SecretKind = 'password' | 'bootstrap';

// INCR both counters and set their window in one round trip; answers the counts after this attempt.
const COUNT_ATTEMPT = `
local user = redis.call('INCR', KEYS[1])
redis.call('EXPIRE', KEYS[1], ARGV[1], 'NX')
local ip = redis.call('INCR', KEYS[2])
redis.call('EXPIRE', KEYS[2], ARGV[1], 'NX')
return { user, ip, redis.call('TTL', KEYS[1]), redis.call('TTL', KEYS[2]) }`;

// A success: the subject starts over; the IP gets its attempt back (never below zero, never without a window).
const REFUND = `
redis.call('DEL', KEYS[1])
if (tonumber(redis.call('GET', KEYS[2]) or '0') > 0) then redis.call('DECR', KEYS[2]) end
return 1`;

// One limiter for every secret a client may guess. Attempts are counted in Redis (every api
// process shares the count) per subject + IP and per IP, each in a fixed window, and counted
// BEFORE the secret is verified: the count and the check are one atomic script, so parallel
// guesses cannot all see the same old count (40 parallel wrong passwords against a limit of 5 verify
// exactly 5). A success refunds its own attempt. Subjects are hashed: keys never hold what was typed.
export function createLoginLimiter(options: LoginLimiterOptions) {
  const keys = (kind: SecretKind, subject: string, ip: string) => {
    const user = createHash('sha256')
      .update(`${kind}\u0000${subject.toLowerCase()}\u0000${ip}`)
      .digest('hex')
      .slice(0, 32);
    return { user: `${options.prefix}:login:u:${user}`, ip: `${options.prefix}:login:ip:${ip}` };
  };
  return {
    /** Counts an attempt and says whether it may go on to verify the secret. */
    async attempt(kind: SecretKind, subject: string, ip: string): Promise<LimitCheck> {
      const k = keys(kind, subject, ip);
      const reply = (await options.client.eval(COUNT_ATTEMPT, {
        keys: [k.user, k.ip],
        arguments: [String(options.windowSeconds)],
      })) as number[];
      const [userCount = 0, ipCount = 0, userTtl = 0, ipTtl = 0] = reply;
      const waits = [userCount > options.maxPerUser ? userTtl : null, ipCount > options.maxPerIp ? ipTtl : null];
      const blocked = waits.filter((ttl): ttl is number => ttl !== null);
      if (blocked.length === 0) return { ok: true };
      return { ok: false, retryAfterSeconds: Math.max(1, ...blocked) };
    },
    /** A verified secret: the subject's count starts over and the IP gets its attempt back. */
    async succeeded(kind: SecretKind, subject: string, ip: string): Promise<void> {
      const k = keys(kind, subject, ip);
      await options.client.eval(REFUND, { keys: [k.user, k.ip] });
    },
  };
}

export type LoginLimiter = ReturnType<typeof createLoginLimiter>;
