import type { OrgId } from '@relay/core';
import type { RedisConnection } from './redis-connection';

// Rule changes every delivery worker must learn at once, fanned out over Redis pub/sub. Workers remember a
// rule for RULE_CACHE_MS; a rule that turns unhealthy must stop being attempted by every worker right away,
// or a burst right after a 410 goes to the gone target. Best effort: a message lost while Redis is away
// only leaves the cache to expire, and an attempt that meets a 410 on an unhealthy rule still pauses.

export const ruleChangesChannel = (prefix: string) => `${prefix}:rule-changes`;

export interface RuleChange {
  orgId: OrgId;
  ruleId: string;
}

export interface RuleChangePublisher {
  /** Never throws: the change is committed, and the message only speeds up what the cache does anyway. */
  publish(change: RuleChange): Promise<void>;
}

export function createRuleChangePublisher(options: {
  redis: RedisConnection;
  prefix: string;
  onError?: (err: unknown) => void;
}): RuleChangePublisher {
  return {
    async publish(change) {
      try {
        await options.redis.publish(ruleChangesChannel(options.prefix), JSON.stringify(change));
      } catch (err) {
        options.onError?.(err);
      }
    },
  };
}

const isChange = (value: unknown): value is RuleChange =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as RuleChange).orgId === 'string' &&
  typeof (value as RuleChange).ruleId === 'string';

/**
 * Hears every rule change on `redis`, a connection of its own (a subscribed connection runs no other
 * command). Resolves once Redis confirmed the subscription.
 */
export async function subscribeRuleChanges(options: {
  redis: RedisConnection;
  prefix: string;
  onChange: (change: RuleChange) => void;
}): Promise<void> {
  const channel = ruleChangesChannel(options.prefix);
  options.redis.on('message', (from: string, raw: string) => {
    if (from !== channel) return;
    let change: unknown;
    try {
      change = JSON.parse(raw);
    } catch {
      return;
    }
    if (isChange(change)) options.onChange(change);
  });
  await options.redis.subscribe(channel);
}
