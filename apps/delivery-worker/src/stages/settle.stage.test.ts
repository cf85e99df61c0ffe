import type { AttemptOutcome } from '@relay/core';
import { createEventRepository, createRuleHealthRepository, type OrderingHead, type Database } from '@relay/db';
import { createDeliveryStore } from '../delivery-store';
import type { RuleOutcome } from '../hook-dispatch';
import type { Notice } from '../notifications/notifier';
import { createRuleHealth } from '../rule-health';
import { useRuleTestDatabase } from '../rule-test-database';
import type { Delivery, Sent } from './delivery';
import { createSettle } from './settle.stage';
import { newEvent, newRule, ORG, quiet, RETRY } from './stage-test-kit';

const T0 = new Date('2027-06-01T00:00:00Z').getTime();

let db: Database;
useRuleTestDatabase((opened) => (db = opened));

// The settle stage over the real database and real endpoint health; what it tells others (hooks, metrics,
// notices, released ordering keys) is heard through the functions it is given.
function setup() {
  const released: OrderingHead[] = [];
  const store = createDeliveryStore(
    createEventRepository(db.pool, { defaultTargetUrl: undefined }),
    undefined,
    undefined,
    (heads) => released.push(...heads),
  );
  const hooks: RuleOutcome[] = [];
  const counted: string[] = [];
  const notices: Notice[] = [];
  const settle = createSettle({
    store,
    health: createRuleHealth({
      repository: createRuleHealthRepository(db.pool),
      unhealthyAfterSeconds: 3_600,
      logger: quiet,
      now: () => T0,
    }),
    notify: async (_org, notice) => void notices.push(notice),
    dispatchHooks: async (outcome) => void hooks.push(outcome),
    metrics: {
      delivery: (_org, outcome, statusClass) => void counted.push(`${outcome} ${statusClass}`),
      deliveredAfter: () => void counted.push('delivered after'),
    },
    ordering: true,
    logger: quiet,
    now: () => T0,
    random: () => 0,
  });
  return { settle, hooks, counted, notices, released };
}

async function delivery(options: { maxAttempts?: number; ordering?: boolean } = {}): Promise<Delivery> {
  const rule = await newRule(db, { source: 'shop', ...(options.ordering ? { ordering: { key: 'source' } } : {}) });
  const event = await newEvent(db, { source: 'shop', ...(options.ordering ? { orderingKey: 'k' } : {}) });
  return {
    orgId: ORG,
    event,
    targetUrl: rule.targetUrl,
    ruleId: rule.id,
    rule,
    policy: { retry: { ...RETRY, maxAttempts: options.maxAttempts ?? RETRY.maxAttempts } },
    ordered: options.ordering ?? false,
    origin: 'http://target.example',
    forwardPathQuery: false,
  };
}

const sent = (d: Delivery, status: number): Sent => {
  const outcome: AttemptOutcome = { kind: 'response', status };
  const at = new Date(T0);
  return {
    outcome,
    attempt: {
      attemptNumber: d.event.attemptCount + 1,
      kind: 'main',
      targetUrl: d.targetUrl,
      responseStatus: status,
      responseBody: 'body',
      error: null,
      durationMs: 12,
      startedAt: at,
      finishedAt: at,
    },
  };
};

const eventRow = async (id: string) =>
  (
    await db.pool.query(
      `SELECT status, attempt_count, failure_reason, next_attempt_at,
         (SELECT count(*)::int FROM delivery_attempts a WHERE a.event_id = e.id) AS attempts
       FROM events e WHERE id = $1`,
      [id],
    )
  ).rows[0];
const ruleRow = async (id: string) =>
  (await db.pool.query('SELECT health, failing_since FROM providers WHERE id = $1', [id])).rows[0];

describe('the settle stage', () => {
  it('stores a delivered attempt, counts it, then fires the rule’s success hooks', async () => {
    const { settle, hooks, counted } = setup();
    const d = await delivery();
    expect(await settle.attempted(d, sent(d, 200))).toEqual({ result: 'delivered' });
    expect(await eventRow(d.event.id)).toMatchObject({ status: 'delivered', attempts: 1 });
    expect(counted).toEqual(['delivered 2xx', 'delivered after']);
    expect(hooks).toEqual([
      {
        orgId: ORG,
        eventId: d.event.id,
        ruleId: d.ruleId,
        run: 0,
        deliveryStatus: 'delivered',
        responseStatus: 200,
      },
    ]);
  });

  it('schedules a retry by the policy’s backoff, starts the rule’s failing run and fires no hook', async () => {
    const { settle, hooks, counted } = setup();
    const d = await delivery();
    // random 0: half the first step of the backoff (1 s).
    expect(await settle.attempted(d, sent(d, 503))).toEqual({ result: 'retry_scheduled', delayMs: 500 });
    expect(await eventRow(d.event.id)).toMatchObject({ status: 'queued', next_attempt_at: new Date(T0 + 500) });
    expect((await ruleRow(d.ruleId!)).failing_since).toEqual(new Date(T0));
    expect(counted).toEqual(['retry 5xx']);
    expect(hooks).toEqual([]);
  });

  it('fails the event when the run is spent and fires the failure hooks with the status', async () => {
    const { settle, hooks, counted } = setup();
    const d = await delivery({ maxAttempts: 1 });
    expect(await settle.attempted(d, sent(d, 503))).toEqual({ result: 'failed' });
    expect(await eventRow(d.event.id)).toMatchObject({ status: 'failed', failure_reason: 'retries_exhausted' });
    expect(counted).toEqual(['failed 5xx']);
    expect(hooks).toMatchObject([{ deliveryStatus: 'failed', responseStatus: 503 }]);
  });

  it('turns the rule unhealthy on a 410 and fails the event, telling the organization', async () => {
    const { settle, hooks, notices } = setup();
    const d = await delivery();
    expect(await settle.attempted(d, sent(d, 410))).toEqual({ result: 'failed' });
    expect(await eventRow(d.event.id)).toMatchObject({ status: 'failed', failure_reason: 'http_status' });
    expect((await ruleRow(d.ruleId!)).health).toBe('unhealthy');
    expect(notices).toMatchObject([{ type: 'rule.unhealthy', data: { reason: 'gone' } }]);
    expect(hooks).toMatchObject([{ deliveryStatus: 'failed', responseStatus: 410 }]);
  });

  it('pauses, not fails, an event whose 410 meets a rule another attempt turned unhealthy', async () => {
    const { settle, hooks, counted } = setup();
    const d = await delivery();
    // Another worker's 410 turned the rule; this delivery's cached rule still says healthy.
    await db.pool.query(`UPDATE providers SET health = 'unhealthy', unhealthy_since = now() WHERE id = $1`, [d.ruleId]);
    expect(await settle.attempted(d, sent(d, 410))).toEqual({ result: 'paused' });
    expect(await eventRow(d.event.id)).toMatchObject({ status: 'paused', attempts: 1 });
    expect(counted).toEqual(['retry 4xx']);
    expect(hooks).toEqual([]);
  });

  it("releases an ordered key with the final outcome and names the key's next event", async () => {
    const { settle, released } = setup();
    const head = await delivery({ ordering: true });
    const next = await newEvent(db, { source: 'shop', orderingKey: 'k' });
    await settle.attempted(head, sent(head, 200));
    // The next head's queue shard is its rule's (the ordering key is the rule's).
    expect(released).toEqual([{ id: next.id, organizationId: ORG, shardKey: next.ruleId }]);
  });

  it('fails an unroutable event without an attempt', async () => {
    const { settle, counted, hooks } = setup();
    const event = await newEvent(db, { source: 'nobody' });
    expect(await settle.unroutable({ orgId: ORG, eventId: event.id, ordered: false })).toEqual({ result: 'failed' });
    expect(await eventRow(event.id)).toMatchObject({ status: 'failed', failure_reason: 'no_target', attempts: 0 });
    expect(counted).toEqual(['failed none']);
    expect(hooks).toEqual([]);
  });

  it('records an ignored event: final, no attempt, no failure reason, no hooks; an ordered key is released', async () => {
    const { settle, counted, hooks, released } = setup();
    const head = await delivery({ ordering: true });
    const next = await newEvent(db, { source: 'shop', orderingKey: 'k' });
    expect(await settle.ignored({ orgId: ORG, eventId: head.event.id, ordered: true })).toEqual({ result: 'ignored' });
    expect(await eventRow(head.event.id)).toMatchObject({ status: 'ignored', failure_reason: null, attempts: 0 });
    expect(counted).toEqual([]);
    expect(hooks).toEqual([]);
    expect(released).toEqual([{ id: next.id, organizationId: ORG, shardKey: next.ruleId }]);
  });

  it('gives up past the fault bound: a relay_error attempt and the failure hooks; an event settled since is left', async () => {
    const { settle, hooks } = setup();
    const d = await delivery();
    expect(await settle.gaveUp(ORG, d.event.id, new Error('database away'))).toBe('failed');
    expect(await eventRow(d.event.id)).toMatchObject({ status: 'failed', failure_reason: 'relay_error', attempts: 1 });
    expect(hooks).toMatchObject([{ ruleId: d.ruleId, deliveryStatus: 'failed', responseStatus: null }]);
    expect(await settle.gaveUp(ORG, d.event.id, new Error('again'))).toBe('skipped');
  });
});
