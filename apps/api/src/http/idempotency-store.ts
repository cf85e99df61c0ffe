import { randomUUID } from 'node:crypto';
import type { NodeRedisClient } from '@relay/queue';

/** What a finished first attempt answered: a reply (secret already removed) or a 4xx problem. */
export type StoredOutcome =
  | { status: number; body?: unknown }
  | { status: number; problem: { code: string; message: string; details?: Record<string, unknown> } };

type Entry =
  { state: 'running'; fingerprint: string; token: string } | ({ state: 'done'; fingerprint: string } & StoredOutcome);

/** A claim on a key: ours to run (with the token that proves it), or what another attempt left. */
export type Claim =
  | { kind: 'claimed'; token: string }
  | { kind: 'running'; fingerprint: string }
  | { kind: 'done'; fingerprint: string; outcome: StoredOutcome };

export interface IdempotencyStoreOptions {
  client: Pick<NodeRedisClient, 'eval' | 'isReady'>;
  prefix: string;
  /** How long a finished answer is replayed. */
  ttlSeconds: number;
  /**
   * How long a claim holds while its first attempt runs. A process killed mid-request leaves the
   * claim behind; it lapses after this (duplicates meanwhile answer 409, never act twice).
   */
  runningSeconds: number;
  /**
   * Storing or freeing an answer failed (Redis lost after acting): the request still gets its answer,
   * and its claim lapses after `runningSeconds`.
   */
  onError: (err: unknown) => void;
}

// Claim and read in one step, so two duplicates cannot both see the key free.
const CLAIM = `
local current = redis.call('GET', KEYS[1])
if current then return current end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
return false`;

// Finish or release only our own claim: a claim that lapsed and was taken again is not ours to touch.
const REPLACE_OWN = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[2] == '' then redis.call('DEL', KEYS[1]) else redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3]) end
return 1`;

// Entries are keyed by a hash (the caller's slot) and hold only a request fingerprint and the answer.
export function createIdempotencyStore(options: IdempotencyStoreOptions) {
  const key = (slot: string) => `${options.prefix}:idempotency:${slot}`;
  const running = (fingerprint: string, token: string) =>
    JSON.stringify({ state: 'running', fingerprint, token } satisfies Entry);
  return {
    async claim(slot: string, fingerprint: string): Promise<Claim> {
      // While Redis is away the client would queue the command until it is back: fail now instead.
      if (!options.client.isReady) throw new Error('idempotency store: Redis is not connected');
      const token = randomUUID();
      const current = (await options.client.eval(CLAIM, {
        keys: [key(slot)],
        arguments: [running(fingerprint, token), String(options.runningSeconds)],
      })) as string | null;
      if (current === null) return { kind: 'claimed', token };
      const entry = JSON.parse(current) as Entry;
      if (entry.state === 'running') return { kind: 'running', fingerprint: entry.fingerprint };
      const { state: _state, fingerprint: stored, ...outcome } = entry;
      return { kind: 'done', fingerprint: stored, outcome };
    },
    /** Stores the first attempt's answer for replays. */
    async complete(slot: string, fingerprint: string, token: string, outcome: StoredOutcome): Promise<void> {
      const done = JSON.stringify({ state: 'done', fingerprint, ...outcome } satisfies Entry);
      await options.client
        .eval(REPLACE_OWN, {
          keys: [key(slot)],
          arguments: [running(fingerprint, token), done, String(options.ttlSeconds)],
        })
        .catch(options.onError);
    },
    /** Frees the key after a failure of the relay (5xx): the client may try it again. */
    async release(slot: string, fingerprint: string, token: string): Promise<void> {
      await options.client
        .eval(REPLACE_OWN, { keys: [key(slot)], arguments: [running(fingerprint, token), '', '0'] })
        .catch(options.onError);
    },
  };
}

export type IdempotencyStore = ReturnType<typeof createIdempotencyStore>;
