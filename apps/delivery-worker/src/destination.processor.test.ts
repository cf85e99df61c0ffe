import { createHmac } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parsePortPolicy, standardWebhookKey, type TargetPolicy } from '@relay/core';
import { createDeliveryRepository, createDestinationRepository, createEventRepository, type Database } from '@relay/db';
import type { DestinationJobRequest } from '@relay/queue';
import { startTargetServer, type TargetServer } from '@relay/test-support';
import { createTargetResolver, createRuleRepository, SYSTEM_ACTOR } from '@relay/db';
import { createTransformRunner, TransformUnavailableError, type TransformRunner } from '@relay/transform';
import { createDeliveryStore } from './delivery-store';
import { createDeliveryTransform } from './delivery-transform';
import { createFanOut } from './destination-fan-out';
import { createRuleFilterCheck } from './rule-filter';
import { createRuleLookup } from './rule-lookup';
import { createRulePolicies } from './rule-policy';
import { createPrepare } from './stages/prepare.stage';
import { createDestinationProcessor } from './destination.processor';
import { useRuleTestDatabase } from './rule-test-database';
import type { Notice } from './notifications/notifier';
import { createSender } from './sender';
import { newEvent, newRule, ORG, quiet, RETRY } from './stages/stage-test-kit';

let db: Database;
useRuleTestDatabase((opened) => (db = opened));
const open: TargetPolicy = { allowPrivate: true, allowlist: [], allowedPorts: parsePortPolicy('1-65535') };

let target: TargetServer;
beforeAll(async () => {
  target = await startTargetServer();
});
afterAll(() => target.close());
beforeEach(() => {
  target.requests.length = 0;
  target.replyWith(200);
});

function setup(options: { unhealthyAfterSeconds?: number; runner?: TransformRunner } = {}) {
  const enqueued: DestinationJobRequest[] = [];
  const notices: Notice[] = [];
  const counted: string[] = [];
  const deliveries = createDeliveryRepository(db.pool);
  const destinations = createDestinationRepository(db.prisma);
  const fanOut = createFanOut({
    destinations,
    deliveries,
    enqueue: async (requests) => void enqueued.push(...requests),
    cacheMs: 0,
    logger: quiet,
  });
  const events = createEventRepository(db.pool, { defaultTargetUrl: undefined });
  const processor = createDestinationProcessor({
    deliveries,
    transform: options.runner ? createDeliveryTransform(options.runner) : undefined,
    loadEvent: (orgId, id) => events.findById(orgId, id),
    sender: createSender({ timeoutMs: 5_000, policy: open }),
    targetPolicy: open,
    retry: RETRY,
    defaultSecret: 'default-secret',
    keys: undefined,
    unhealthyAfterSeconds: options.unhealthyAfterSeconds ?? 3_600,
    notify: async (_orgId, notice) => void notices.push(notice),
    metrics: {
      delivery: (_org, outcome, statusClass, _ms, kind) => void counted.push(`${kind} ${outcome} ${statusClass}`),
      deliveredAfter: (_ms, kind) => void counted.push(`${kind} delivered after`),
    },
    logger: quiet,
  });
  return { enqueued, notices, counted, deliveries, destinations, fanOut, processor, events };
}

const rowsOf = (eventId: string) =>
  db.prisma.delivery.findMany({ where: { eventId }, include: { destination: true }, orderBy: { createdAt: 'asc' } });

describe('destination fan-out', () => {
  it('makes one delivery per active destination whose filter matches; an unhealthy one waits paused', async () => {
    const { fanOut, destinations, enqueued } = setup();
    const rule = await newRule(db, { source: 'shop' });
    const all = await destinations.create(ORG, rule.id, { targetUrl: `${target.url}/all` });
    await destinations.create(ORG, rule.id, {
      targetUrl: `${target.url}/big`,
      filter: { body: { amount: { $gt: 100 } } },
    });
    await destinations.create(ORG, rule.id, { targetUrl: `${target.url}/off`, active: false });
    const sick = await destinations.create(ORG, rule.id, { targetUrl: `${target.url}/sick` });
    if (!all.ok || !sick.ok) throw new Error('not created');
    await db.prisma.destination.update({ where: { id: sick.destination.id }, data: { health: 'unhealthy' } });

    const event = await newEvent(db, { source: 'shop', ruleId: rule.id, body: '{"amount":5}' });
    await fanOut(ORG, event);
    const rows = await rowsOf(event.id);
    expect(rows.map((r) => [r.destinationId, r.status])).toEqual([
      [all.destination.id, 'queued'],
      [sick.destination.id, 'paused'],
    ]);
    expect(enqueued.map((r) => r.deliveryId)).toEqual([rows[0]!.id]);

    // Run again (a worker killed after the commit): nothing is added, the queued one is enqueued again.
    await fanOut(ORG, event);
    expect(await rowsOf(event.id)).toHaveLength(2);
    expect(enqueued.map((r) => r.deliveryId)).toEqual([rows[0]!.id, rows[0]!.id]);
  });

  it("runs in prepare before the rule's filter: a primary `ignored` still has its destination deliveries", async () => {
    const { fanOut, destinations, events } = setup();
    const rule = await newRule(db, { source: 'shop', filter: { body: { kind: 'never' } } });
    await destinations.create(ORG, rule.id, { targetUrl: `${target.url}/all` });
    const prepare = createPrepare({
      store: createDeliveryStore(events),
      targets: createTargetResolver(db.pool, { defaultTargetUrl: undefined }),
      rules: createRuleLookup(createRuleRepository(db.prisma), { cacheMs: 0 }),
      policyOf: createRulePolicies(RETRY),
      passes: createRuleFilterCheck(quiet),
      fanOut,
      logger: quiet,
      now: Date.now,
    });
    const event = await newEvent(db, { source: 'shop', ruleId: rule.id });
    expect(await prepare(ORG, event.id)).toEqual({ ignored: expect.objectContaining({ eventId: event.id }) });
    expect((await rowsOf(event.id)).map((r) => r.status)).toEqual(['queued']);
  });

  it('costs nothing for an event without a rule or a rule without destinations', async () => {
    const { fanOut, enqueued } = setup();
    const rule = await newRule(db, { source: 'plain' });
    const event = await newEvent(db, { source: 'plain', ruleId: rule.id });
    await fanOut(ORG, event);
    await fanOut(ORG, await newEvent(db, { source: 'nobody' }));
    expect(await db.prisma.delivery.count()).toBe(0);
    expect(enqueued).toEqual([]);
  });
});

describe('a destination delivery', () => {
  async function oneDelivery(
    options: { signingSecret?: string; deliveryPolicy?: object; unhealthyAfterSeconds?: number } = {},
  ) {
    const kit = setup(options);
    const rule = await newRule(db, { source: 'shop' });
    const created = await kit.destinations.create(ORG, rule.id, {
      targetUrl: `${target.url}/dest`,
      ...options,
    });
    if (!created.ok) throw new Error('not created');
    const event = await newEvent(db, { source: 'shop', ruleId: rule.id });
    await kit.fanOut(ORG, event);
    const [row] = await rowsOf(event.id);
    return { ...kit, rule, destination: created.destination, event, deliveryId: row!.id };
  }

  it('goes to its target with its own webhook-id, signed with DEFAULT_SIGNING_SECRET, never changing the event', async () => {
    const { processor, deliveryId, event, destination, counted } = await oneDelivery();
    expect(await processor.attempt(ORG, deliveryId)).toEqual({ result: 'delivered' });
    // Counted once committed, as a destination's: relay_deliveries_total{delivery="destination"} and its latency.
    expect(counted).toEqual(['destination delivered 2xx', 'destination delivered after']);
    const [request] = target.requests;
    expect(request!.url).toBe('/dest');
    expect(request!.headers['webhook-id']).toBe(deliveryId);
    expect(request!.headers['x-relay-destination-id']).toBe(destination.id);
    const signed = `${deliveryId}.${String(request!.headers['webhook-timestamp'])}.${request!.body.toString()}`;
    const expected = createHmac('sha256', standardWebhookKey('default-secret')).update(signed).digest('base64');
    expect(String(request!.headers['webhook-signature'])).toContain(expected);
    const stored = await db.prisma.delivery.findFirstOrThrow({ where: { id: deliveryId } });
    expect(stored).toMatchObject({ status: 'delivered', attemptCount: 1, failureReason: null });
    const attempts = await db.prisma.deliveryAttempt.findMany({ where: { eventId: event.id } });
    expect(attempts).toEqual([expect.objectContaining({ kind: 'destination', destinationId: destination.id })]);
    expect(await db.prisma.event.findUniqueOrThrow({ where: { id: event.id } })).toMatchObject({
      status: 'queued',
      attemptCount: 0,
    });
  });

  it('retries alone under its own delivery policy, and fails when its attempts run out', async () => {
    const { processor, deliveryId, counted } = await oneDelivery({ deliveryPolicy: { max_attempts: 2 } });
    target.replyWith(503);
    const first = await processor.attempt(ORG, deliveryId);
    expect(first.result).toBe('retry_scheduled');
    await db.prisma.delivery.updateMany({ where: { id: deliveryId }, data: { nextAttemptAt: new Date(0) } });
    expect(await processor.attempt(ORG, deliveryId)).toEqual({ result: 'failed' });
    expect(counted).toEqual(['destination retry 5xx', 'destination failed 5xx']);
    expect(await db.prisma.delivery.findFirstOrThrow({ where: { id: deliveryId } })).toMatchObject({
      status: 'failed',
      attemptCount: 2,
      failureReason: 'retries_exhausted',
      lastError: 'HTTP 503',
    });
  });

  it('a resumed delivery counts attempts from the resume: a full budget again, whatever it used', async () => {
    const kit = await oneDelivery({ deliveryPolicy: { max_attempts: 2 } });
    target.replyWith(503);
    expect((await kit.processor.attempt(ORG, kit.deliveryId)).result).toBe('retry_scheduled');
    // Its destination turns unhealthy (the delivery waits paused, one of its two attempts used), then is resumed.
    const audit = () => ({
      actorUserId: null,
      actorEmail: null,
      action: 'destination.unhealthy',
      resourceType: 'destination',
      resourceId: kit.destination.id,
    });
    await kit.deliveries.markUnhealthy(ORG, kit.destination.id, 'failing', new Date(), audit, null);
    expect((await rowsOf(kit.event.id)).map((r) => r.status)).toEqual(['paused']);
    await kit.destinations.resume(ORG, kit.rule.id, kit.destination.id);
    // Two attempts in the new run: the first is retried (not the second of two), the second fails as the last.
    expect((await kit.processor.attempt(ORG, kit.deliveryId)).result).toBe('retry_scheduled');
    await db.prisma.delivery.updateMany({ where: { id: kit.deliveryId }, data: { nextAttemptAt: new Date(0) } });
    expect(await kit.processor.attempt(ORG, kit.deliveryId)).toEqual({ result: 'failed' });
    expect(await db.prisma.delivery.findFirstOrThrow({ where: { id: kit.deliveryId } })).toMatchObject({
      status: 'failed',
      attemptCount: 3,
      runStartAttempt: 1,
      failureReason: 'retries_exhausted',
    });
  });

  it('a 410 turns the destination unhealthy, pausing its other queued deliveries and its later ones', async () => {
    const kit = await oneDelivery();
    const second = await newEvent(db, { source: 'shop', ruleId: kit.rule.id });
    await kit.fanOut(ORG, second);
    target.replyWith(410);
    expect(await kit.processor.attempt(ORG, kit.deliveryId)).toEqual({ result: 'failed' });
    const destination = await db.prisma.destination.findUniqueOrThrow({ where: { id: kit.destination.id } });
    expect(destination).toMatchObject({ health: 'unhealthy', unhealthyReason: 'gone' });
    expect((await rowsOf(second.id)).map((r) => r.status)).toEqual(['paused']);
    // The transition is audited with it, by the system actor, as a rule's is.
    const entries = await db.prisma.auditEntry.findMany({ where: { resourceId: kit.destination.id } });
    expect(entries).toEqual([
      expect.objectContaining({
        action: 'destination.unhealthy',
        resourceType: 'destination',
        actorUserId: SYSTEM_ACTOR.id,
        metadata: expect.objectContaining({
          rule_id: kit.rule.id,
          reason: 'gone',
          response_status: 410,
          paused_deliveries: 1,
        }),
      }),
    ]);
    const third = await newEvent(db, { source: 'shop', ruleId: kit.rule.id });
    await kit.fanOut(ORG, third);
    expect((await rowsOf(third.id)).map((r) => r.status)).toEqual(['paused']);
    expect(target.requests).toHaveLength(1);
    // After the commit, the organization's notification URL hears it: `destination.unhealthy`.
    expect(kit.notices).toEqual([
      {
        type: 'destination.unhealthy',
        data: {
          destination: {
            id: kit.destination.id,
            name: kit.destination.name,
            rule_id: kit.rule.id,
            target_url: `${target.url}/dest`,
          },
          reason: 'gone',
          since: destination.unhealthySince!.toISOString(),
        },
      },
    ]);
  });

  it('failing for its span turns it unhealthy once: audited and noticed once, however many attempts fail', async () => {
    // unhealthy_after_seconds 0: the first failure starts the run, the next one is past the span.
    const kit = await oneDelivery({ deliveryPolicy: { max_attempts: 5 }, unhealthyAfterSeconds: 0 });
    target.replyWith(503);
    expect((await kit.processor.attempt(ORG, kit.deliveryId)).result).toBe('retry_scheduled');
    const destination = await db.prisma.destination.findUniqueOrThrow({ where: { id: kit.destination.id } });
    expect(destination).toMatchObject({ health: 'unhealthy', unhealthyReason: 'failing' });
    expect(kit.notices.map((n) => [n.type, n.data.reason])).toEqual([['destination.unhealthy', 'failing']]);
    // Its own delivery (stored queued for its retry before the transition) waits paused with the others.
    expect((await rowsOf(kit.event.id)).map((r) => r.status)).toEqual(['paused']);
    expect(await kit.processor.attempt(ORG, kit.deliveryId)).toEqual({ result: 'skipped' });
    expect(kit.notices).toHaveLength(1);
    const actions = await db.prisma.auditEntry.findMany({ where: { resourceId: kit.destination.id } });
    expect(actions.map((e) => [e.action, (e.metadata as { reason: string }).reason])).toEqual([
      ['destination.unhealthy', 'failing'],
    ]);
  });
});

// A sandbox thread that cannot start is the relay's fault, not the transform's: before, the delivery ended failed
// (transform_error, final) and was never sent. Now the attempt throws the relay fault, which runJob defers without
// counting an attempt (relay-faults.ts); the next try, with the sandbox back, runs the transform and sends.
describe("a destination's transform when the sandbox is unavailable", () => {
  const broken = path.join(os.tmpdir(), `relay-broken-destination-sandbox-${process.pid}.cjs`);
  writeFileSync(broken, "throw new Error('cannot load the sandbox');\n");
  const transform = "addHandler('transform', (r) => { r.body = { seen: true }; return r; });";
  let down: TransformRunner;
  let up: TransformRunner;
  beforeAll(() => {
    down = createTransformRunner({ threadFile: broken, concurrency: 1 });
    up = createTransformRunner({ concurrency: 1 });
  });
  afterAll(() => Promise.all([down.close(), up.close()]));

  it('leaves the delivery queued and untried, and sends it once the sandbox is back', async () => {
    const kit = setup({ runner: down });
    const rule = await newRule(db, { source: 'shop' });
    const created = await kit.destinations.create(ORG, rule.id, { targetUrl: `${target.url}/dest`, transform });
    if (!created.ok) throw new Error('not created');
    const event = await newEvent(db, { source: 'shop', ruleId: rule.id });
    await kit.fanOut(ORG, event);
    const [row] = await rowsOf(event.id);
    await expect(kit.processor.attempt(ORG, row!.id)).rejects.toBeInstanceOf(TransformUnavailableError);
    expect(await db.prisma.delivery.findFirstOrThrow({ where: { id: row!.id } })).toMatchObject({
      status: 'queued',
      attemptCount: 0,
      failureReason: null,
    });
    expect(await db.prisma.deliveryAttempt.count({ where: { eventId: event.id } })).toBe(0);
    expect(target.requests).toEqual([]);

    expect(await setup({ runner: up }).processor.attempt(ORG, row!.id)).toEqual({ result: 'delivered' });
    expect(JSON.parse(target.requests[0]!.body.toString())).toEqual({ seen: true });
  });
});
