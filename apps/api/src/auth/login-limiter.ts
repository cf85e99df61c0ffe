import { createHash } from 'node:crypto';
import type { NodeRedisClient } from '@relay/queue';
import { sessionStoreUnavailable } from './session-store-unavailable';

export interface LoginLimiterOptions {
  client: Pick<NodeRedisClient, 'eval'>;
  prefix: string;
  maxPerUser: number;
  /** Attempts at one subject from every IP together: bounds a guesser spread over many addresses. */
  maxPerAccount: number;
  maxPerIp: number;
  windowSeconds: number;
  /** Hears each failed check: a wrong secret (`failed`) or an attempt over a limit (the relay_login_failures_total metric). */
  onFailure?: (kind: SecretKind, reason: 'wrong_secret' | 'limited') => void;
}

export type LimitCheck = { ok: true } | { ok: false; retryAfterSeconds: number };

/** What a secret guards: a password (login and Basic share it), the bootstrap token, a set-password code. */
export type SecretKind = 'password' | 'bootstrap' | 'reset_code';

// INCR every counter and set its window in one round trip; answers the counts after this attempt, then their TTLs.
const COUNT_ATTEMPT = `
local counts, ttls = {}, {}
for i, key in ipairs(KEYS) do
  counts[i] = redis.call('INCR', key)
  redis.call('EXPIRE', key, ARGV[1], 'NX')
  ttls[i] = redis.call('TTL', key)
end
for i = 1, #ttls do counts[#KEYS + i] = ttls[i] end
return counts`;

// A success: the subject + IP starts over; the account and the IP get the attempt back (never below zero).
const REFUND = `
redis.call('DEL', KEYS[1])
for i = 2, #KEYS do
  if (tonumber(redis.call('GET', KEYS[i]) or '0') > 0) then redis.call('DECR', KEYS[i]) end
end
return 1`;

// One limiter for every secret a client may guess. Attempts are counted in Redis (every api
// process shares the count) per subject + IP, per subject and per IP, each in a fixed window, and counted
// BEFORE the secret is verified: the count and the check are one atomic script, so parallel
// guesses cannot all see the same old count (40 parallel wrong passwords against a limit of 5 verify
// exactly 5). A success refunds its own attempt. Subjects are hashed: keys never hold what was typed.
export function createLoginLimiter(options: LoginLimiterOptions) {
  const hash = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 32);
  // Order matters: the subject + IP key first (a success clears it), then the ones a success refunds.
  const keys = (kind: SecretKind, subject: string, ip: string) => {
    const who = `${kind}\u0000${subject.toLowerCase()}`;
    // One hash tag for the whole limiter: a script's three keys must share a Redis Cluster slot, and the per-IP
    // count spans subjects, so no narrower tag holds all three (login traffic is small: one slot carries it).
    const tag = `{${options.prefix}:login}`;
    return [`${tag}:u:${hash(`${who}\u0000${ip}`)}`, `${tag}:a:${hash(who)}`, `${tag}:ip:${ip}`];
  };
  const limits = [options.maxPerUser, options.maxPerAccount, options.maxPerIp];
  return {
    /** Counts an attempt and says whether it may go on to verify the secret. */
    async attempt(kind: SecretKind, subject: string, ip: string): Promise<LimitCheck> {
      // Without the count no secret is verified (fail closed): Redis away is a 503, never an unlimited guess.
      const reply = (await options.client
        .eval(COUNT_ATTEMPT, { keys: keys(kind, subject, ip), arguments: [String(options.windowSeconds)] })
        .catch((err: unknown) => {
          throw sessionStoreUnavailable(err);
        })) as number[];
      const blocked = limits.flatMap((limit, i) => ((reply[i] ?? 0) > limit ? [reply[limits.length + i] ?? 1] : []));
      if (blocked.length === 0) return { ok: true };
      options.onFailure?.(kind, 'limited');
      return { ok: false, retryAfterSeconds: Math.max(1, ...blocked) };
    },
    /** A wrong secret; its attempt was counted already, this only tells the metrics. */
    failed(kind: SecretKind): void {
      options.onFailure?.(kind, 'wrong_secret');
    },
    /** A verified secret: the subject's count starts over and the IP gets its attempt back. */
    async succeeded(kind: SecretKind, subject: string, ip: string): Promise<void> {
      await options.client.eval(REFUND, { keys: keys(kind, subject, ip) }).catch((err: unknown) => {
        throw sessionStoreUnavailable(err);
      });
    },
  };
}

export type LoginLimiter = ReturnType<typeof createLoginLimiter>;
