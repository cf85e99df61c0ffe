// What a bench run left undelivered, shown instead of only a shortfall in the count: each such event's row, its
// attempts and its BullMQ job (under the run's queue prefix), so that a lost event can be told from a slow one.
import { Redis } from 'ioredis';
import { query, REDIS_URL } from './database.mjs';

export async function describeUndelivered(url, prefix, limit = 10) {
  const events = await query(
    url,
    `SELECT id, status, attempt_count, run_start_attempt, next_attempt_at, failure_reason, last_error,
       transformed_body IS NOT NULL AS transformed, updated_at
     FROM events WHERE status <> 'delivered' ORDER BY id LIMIT $1`,
    [limit],
  );
  const redis = new Redis(REDIS_URL);
  try {
    for (const event of events) {
      event.attempts = await query(
        url,
        `SELECT attempt_number, kind, response_status, error, started_at FROM delivery_attempts WHERE event_id = $1
         ORDER BY started_at`,
        [event.id],
      );
      const key = `${prefix}:deliveries:${event.id}`;
      const job = await redis.hgetall(key);
      const states = ['wait', 'active', 'delayed', 'completed', 'failed', 'prioritized'];
      const inState = [];
      for (const state of states) {
        const member =
          state === 'wait' || state === 'active'
            ? (await redis.lpos(`${prefix}:deliveries:${state}`, event.id)) !== null
            : (await redis.zscore(`${prefix}:deliveries:${state}`, event.id)) !== null;
        if (member) inState.push(state);
      }
      event.job =
        Object.keys(job).length === 0
          ? null
          : { states: inState, attemptsMade: job.attemptsMade, failedReason: job.failedReason, delay: job.delay };
    }
  } finally {
    redis.disconnect();
  }
  return events;
}
