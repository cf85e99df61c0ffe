import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  createEventOrderingRepository,
  createEventRepository,
  createRuleRepository,
  createRuleHealthRepository,
  createTargetResolver,
  type Database,
} from '@relay/db';
import { createTransformRunner, TransformUnavailableError, type TransformRunner } from '@relay/transform';
import { createDeliveryStore } from '../delivery-store';
import { createDeliveryTransform, type DeliveryTransform } from '../delivery-transform';
import { createOrderGate } from '../ordered-delivery';
import { createRuleHealth } from '../rule-health';
import { useRuleTestDatabase } from '../rule-test-database';
import { createRuleLookup } from '../rule-lookup';
import { createRuleFilterCheck } from '../rule-filter';
import { createRulePolicies } from '../rule-policy';
import type { Delivery, Prepared } from './delivery';
import { createPrepare } from './prepare.stage';
import { fairGateOf, newEvent, newRule, ORG, quiet, RETRY } from './stage-test-kit';

const T0 = new Date('2027-06-01T00:00:00Z').getTime();

let db: Database;
useRuleTestDatabase((opened) => (db = opened));

let runner: TransformRunner;
beforeAll(() => (runner = createTransformRunner({ timeoutMs: 1_000, concurrency: 1 })));
afterAll(() => runner.close());

// The prepare stage over the real database: every gate it passes, in the order it passes them.
function setup(
  options: {
    poolSize?: number;
    transform?: (run: DeliveryTransform) => DeliveryTransform;
    runner?: TransformRunner;
  } = {},
) {
  const rules = createRuleLookup(createRuleRepository(db.prisma), { cacheMs: 0 });
  const store = createDeliveryStore(createEventRepository(db.pool, { defaultTargetUrl: undefined }));
  const fairGate = fairGateOf(options.poolSize ?? 10);
  const run = createDeliveryTransform(options.runner ?? runner);
  const prepare = createPrepare({
    transforms: {
      run: options.transform ? options.transform(run) : run,
      store: (orgId, id, output) => store.storeTransformed({ orgId, id }, output),
    },
    store,
    order: createOrderGate({ rules, ordering: createEventOrderingRepository(db.pool) }),
    targets: createTargetResolver(db.pool, { defaultTargetUrl: undefined }),
    rules,
    health: createRuleHealth({
      repository: createRuleHealthRepository(db.pool),
      unhealthyAfterSeconds: 3_600,
      logger: quiet,
      now: () => T0,
    }),
    policyOf: createRulePolicies(RETRY),
    passes: createRuleFilterCheck(quiet),
    fairGate,
    logger: quiet,
    now: () => T0,
  });
  return { prepare, fairGate, drain: () => store.drain() };
}

const deliveryOf = (prepared: Prepared): Delivery => {
  if (!('delivery' in prepared)) throw new Error(`no delivery: ${JSON.stringify(prepared)}`);
  return prepared.delivery;
};

describe('the prepare stage', () => {
  it("hands on a queued event of a rule: its target, its rule's policy and health, its origin's slot", async () => {
    const rule = await newRule(db, {
      source: 'shop',
      targetUrl: 'http://shop.example:8080/in',
      deliveryPolicy: { max_attempts: 7, timeout_seconds: 2 },
    });
    const event = await newEvent(db, { source: 'shop' });
    const { prepare } = setup();
    const delivery = deliveryOf(await prepare(ORG, event.id));
    expect(delivery).toMatchObject({
      orgId: ORG,
      targetUrl: 'http://shop.example:8080/in',
      ruleId: rule.id,
      ordered: false,
      origin: 'http://shop.example:8080',
      policy: { retry: { ...RETRY, maxAttempts: 7 }, timeoutMs: 2_000 },
    });
    expect(delivery.event.id).toBe(event.id);
    expect(delivery.rule?.id).toBe(rule.id);
  });

  it('skips a job that names no event, an unknown event and one no longer queued', async () => {
    const { prepare } = setup();
    expect(await prepare(ORG, 'not-a-uuid')).toEqual({ result: 'skipped' });
    expect(await prepare(ORG, randomUUID())).toEqual({ result: 'skipped' });
    await newRule(db, { source: 'shop' });
    const event = await newEvent(db, { source: 'shop' });
    await db.pool.query(`UPDATE events SET status = 'delivered', delivered_at = now() WHERE id = $1`, [event.id]);
    expect(await prepare(ORG, event.id)).toEqual({ result: 'skipped' });
  });

  it("reschedules a job that came before the event's time, by the time left", async () => {
    await newRule(db, { source: 'shop' });
    const event = await newEvent(db, { source: 'shop', nextAttemptAt: new Date(T0 + 30_000) });
    expect(await setup().prepare(ORG, event.id)).toEqual({ result: 'rescheduled', delayMs: 30_000 });
  });

  it("lets only an ordered key's head through; the head goes on as ordered", async () => {
    await newRule(db, { source: 'orders', ordering: { key: 'source' } });
    const head = await newEvent(db, { source: 'orders', orderingKey: 'k' });
    const next = await newEvent(db, { source: 'orders', orderingKey: 'k' });
    const { prepare } = setup();
    expect(await prepare(ORG, next.id)).toEqual({ result: 'waiting_order' });
    expect(deliveryOf(await prepare(ORG, head.id)).ordered).toBe(true);
  });

  it('hands an event with no rule and no default target to settle as unroutable', async () => {
    const event = await newEvent(db, { source: 'nobody' });
    expect(await setup().prepare(ORG, event.id)).toEqual({
      unroutable: { orgId: ORG, eventId: event.id, ordered: false },
    });
  });

  it("hands an event its rule's filter does not match to settle as ignored; a matching one goes on", async () => {
    await newRule(db, {
      source: 'shop',
      filter: { body: { amount: { $gte: 100 } }, path: { $startsWith: '/orders' }, query: { env: 'prod' } },
    });
    const small = await newEvent(db, { source: 'shop', body: '{"amount":5}', path: '/orders', query: { env: 'prod' } });
    const big = await newEvent(db, { source: 'shop', body: '{"amount":500}', path: '/orders', query: { env: 'prod' } });
    const otherPath = await newEvent(db, { source: 'shop', body: '{"amount":500}', path: '/refunds' });
    const { prepare } = setup();
    expect(await prepare(ORG, small.id)).toEqual({ ignored: { orgId: ORG, eventId: small.id, ordered: false } });
    expect(await prepare(ORG, otherPath.id)).toMatchObject({ ignored: { eventId: otherPath.id } });
    expect(deliveryOf(await prepare(ORG, big.id)).event.id).toBe(big.id);
  });

  it('reads a CEL filter, and a body that is not JSON as text', async () => {
    await newRule(db, { source: 'shop', filter: { cel: 'body.type.startsWith("invoice.")' } });
    const invoice = await newEvent(db, { source: 'shop', body: '{"type":"invoice.paid"}' });
    const customer = await newEvent(db, { source: 'shop', body: '{"type":"customer.created"}' });
    const { prepare } = setup();
    expect(deliveryOf(await prepare(ORG, invoice.id)).event.id).toBe(invoice.id);
    expect(await prepare(ORG, customer.id)).toMatchObject({ ignored: { eventId: customer.id } });
  });

  it("pauses an unhealthy rule's event instead of sending it", async () => {
    const rule = await newRule(db, { source: 'shop' });
    const event = await newEvent(db, { source: 'shop' });
    await db.pool.query(`UPDATE providers SET health = 'unhealthy', unhealthy_since = now() WHERE id = $1`, [rule.id]);
    expect(await setup().prepare(ORG, event.id)).toEqual({ result: 'paused' });
    const { rows } = await db.pool.query('SELECT status FROM events WHERE id = $1', [event.id]);
    expect(rows[0].status).toBe('paused');
  });

  it('makes an event wait its turn while its origin holds the pool, and lets it go once a slot is freed', async () => {
    await newRule(db, { source: 'shop' });
    const first = await newEvent(db, { source: 'shop' });
    const second = await newEvent(db, { source: 'shop' });
    const { prepare, fairGate } = setup({ poolSize: 1 });
    const held = deliveryOf(await prepare(ORG, first.id));
    const waiting = await prepare(ORG, second.id);
    expect(waiting).toMatchObject({ result: 'waiting_turn' });
    expect((waiting as { delayMs: number }).delayMs).toBeGreaterThan(0);
    fairGate.release(held.origin, true);
    expect(deliveryOf(await prepare(ORG, second.id)).event.id).toBe(second.id);
  });

  describe("a rule's transform", () => {
    const CHAT = `addHandler('transform', (request) => {
      request.body = { text: request.body.pusher.name + ' pushed', raw: '\u00e9' };
      request.headers['x-kind'] = 'chat';
      return request;
    });`;
    const storedOf = async (id: string) =>
      (await db.pool.query('SELECT transformed_body, transformed_headers FROM events WHERE id = $1', [id])).rows[0];

    it('is run on the stored bytes and its output stored before the delivery is handed on, sent as serialised', async () => {
      await newRule(db, { source: 'push', transform: CHAT });
      const event = await newEvent(db, { source: 'push', body: '{"pusher":{"name":"ann"}}' });
      const { prepare, drain } = setup();
      const delivery = deliveryOf(await prepare(ORG, event.id));
      const expected = '{"text":"ann pushed","raw":"é"}';
      expect(delivery.event.transformed?.body.toString('utf8')).toBe(expected);
      expect(delivery.event.transformed?.headers).toMatchObject({ 'x-kind': 'chat' });
      const stored = await storedOf(event.id);
      expect(stored.transformed_body.toString('utf8')).toBe(expected);
      expect(stored.transformed_headers).toMatchObject({ 'x-kind': 'chat' });
      await drain();
    });

    it('gives a stored body that is not JSON to the transform as its text', async () => {
      await newRule(db, { source: 'form', transform: "addHandler('transform', (r) => ({ ...r, body: [r.body] }));" });
      const event = await newEvent(db, { source: 'form', body: 'a=1&b=2' });
      const { prepare, drain } = setup();
      expect(deliveryOf(await prepare(ORG, event.id)).event.transformed?.body.toString()).toBe('["a=1&b=2"]');
      await drain();
    });

    it('is stored once per run: stores made together agree on one, a finished event stores nothing', async () => {
      await newRule(db, { source: 'push' });
      const [event, done] = [await newEvent(db, { source: 'push' }), await newEvent(db, { source: 'push' })];
      await db.pool.query(`UPDATE events SET status = 'delivered', delivered_at = now() WHERE id = $1`, [done.id]);
      const store = createDeliveryStore(createEventRepository(db.pool, { defaultTargetUrl: undefined }));
      const output = (n: number) => ({ body: Buffer.from(`{"n":${n}}`), headers: {}, path: null, logs: '' });
      // One batch (a duplicate job's first attempt beside the first): whichever is written, both send it.
      const [a, b, none] = await Promise.all([
        store.storeTransformed({ orgId: ORG, id: event.id }, output(1)),
        store.storeTransformed({ orgId: ORG, id: event.id }, output(2)),
        store.storeTransformed({ orgId: ORG, id: done.id }, output(3)),
      ]);
      expect(a?.body.toString()).toBe(b?.body.toString());
      expect(none).toBeNull();
      // A later store (the run's next attempt would not run it, but a duplicate might) keeps what is stored.
      expect((await store.storeTransformed({ orgId: ORG, id: event.id }, output(4)))?.body).toEqual(a?.body);
      expect((await storedOf(event.id)).transformed_body).toEqual(a?.body);
    });

    // The bench's lost event: a worker busy past the transform's time limit (a loaded machine) came to the limit's
    // timer before the sandbox's answer, and the delivery ended failed (transform_error, final), never sent.
    it("hands on the delivery when the sandbox answered in time but the worker's event loop came late", async () => {
      await newRule(db, { source: 'push', transform: CHAT });
      const event = await newEvent(db, { source: 'push', body: '{"pusher":{"name":"bob"}}' });
      expect(await runner.compile('1')).toEqual({ ok: true }); // the sandbox thread is up: the call goes out at once
      const { prepare, drain } = setup({
        transform: (run) => async (job) => {
          const answered = run(job);
          await new Promise((resolve) => setImmediate(resolve)); // the call is with the sandbox
          const busyUntil = Date.now() + 3_000; // three times the limit: other deliveries' work, a collection
          while (Date.now() < busyUntil);
          return answered;
        },
      });
      const delivery = deliveryOf(await prepare(ORG, event.id));
      expect(delivery.event.transformed?.body.toString()).toContain('bob pushed');
      await drain();
    });

    // A sandbox thread that cannot start is the relay's fault, not the transform's: before, the delivery ended failed
    // (transform_error, final) and was never sent. Now prepare throws the relay fault, which runJob defers without
    // counting an attempt (relay-faults.ts); the next try, with the sandbox back, runs the transform and goes on.
    it('leaves the event queued, untried, when the sandbox is unavailable, and hands it on once it is back', async () => {
      await newRule(db, { source: 'push', transform: CHAT });
      const event = await newEvent(db, { source: 'push', body: '{"pusher":{"name":"cy"}}' });
      const broken = path.join(os.tmpdir(), `relay-broken-sandbox-${process.pid}.cjs`);
      writeFileSync(broken, "throw new Error('cannot load the sandbox');\n");
      const unavailable = createTransformRunner({ threadFile: broken, concurrency: 1 });
      try {
        const down = setup({ runner: unavailable });
        await expect(down.prepare(ORG, event.id)).rejects.toBeInstanceOf(TransformUnavailableError);
        await down.drain();
      } finally {
        await unavailable.close();
      }
      const row = (
        await db.pool.query(
          'SELECT status, failure_reason, attempt_count, transformed_body FROM events WHERE id = $1',
          [event.id],
        )
      ).rows[0];
      expect(row).toMatchObject({ status: 'queued', failure_reason: null, attempt_count: 0, transformed_body: null });
      const { prepare, drain } = setup();
      expect(deliveryOf(await prepare(ORG, event.id)).event.transformed?.body.toString()).toContain('cy pushed');
      await drain();
    });
  });
});
