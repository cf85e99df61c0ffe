import { randomUUID } from 'node:crypto';
import { DEFAULT_ORGANIZATION_ID, type AttemptOutcome, type FeedMessage } from '@relay/core';
import {
  createRuleRepository,
  createRuleHealthRepository,
  SYSTEM_ACTOR,
  type Database,
  type RuleRecord,
  type RuleHealthRepository,
} from '@relay/db';
import { reopenEvents, seedEvents } from '@relay/test-support';
import { pino } from 'pino';
import type { Notice } from './notifications/notifier';
import { createRuleHealth } from './rule-health';
import { useRuleTestDatabase } from './rule-test-database';

const ORG = DEFAULT_ORGANIZATION_ID;
const DAY = 86_400_000;
const T0 = new Date('2027-05-01T00:00:00Z').getTime();
const failed: AttemptOutcome = { kind: 'response', status: 503 };
const gone: AttemptOutcome = { kind: 'response', status: 410 };
const ok: AttemptOutcome = { kind: 'response', status: 200 };

let db: Database;
useRuleTestDatabase((opened) => (db = opened));

// A real database and a fake clock: the span is days long, the test takes milliseconds.
function setup() {
  let clock = T0;
  const calls: string[] = [];
  const real = createRuleHealthRepository(db.pool);
  // Counts the round trips health makes, to show that a healthy rule that succeeds costs none.
  const repository = Object.fromEntries(
    Object.entries(real).map(([name, fn]) => [
      name,
      (...args: unknown[]) => (calls.push(name), (fn as (...a: unknown[]) => unknown)(...args)),
    ]),
  ) as RuleHealthRepository;
  const notices: Notice[] = [];
  const published: FeedMessage[] = [];
  const turned: string[] = [];
  const health = createRuleHealth({
    repository,
    unhealthyAfterSeconds: 5 * 86_400,
    feed: { publish: async (_org, messages) => void published.push(...messages) },
    turned: async (_org, ruleId) => void turned.push(ruleId),
    logger: pino({ level: 'silent' }),
    now: () => clock,
  });
  const notify = async (_org: unknown, notice: Notice) => void notices.push(notice);
  return {
    health,
    calls,
    notices,
    published,
    turned,
    notify,
    at: (ms: number) => void (clock = T0 + ms),
  };
}

const rules = () => createRuleRepository(db.prisma);
async function newRule(data: { unhealthyAfterSeconds?: number } = {}): Promise<RuleRecord> {
  const row = await db.prisma.rule.create({
    data: {
      name: randomUUID(),
      organizationId: ORG,
      source: 'health',
      targetUrl: 'http://target.example/hook',
      ...data,
    },
  });
  return (await rules().findById(ORG, row.id))!;
}
const reload = async (rule: RuleRecord) => (await rules().findById(ORG, rule.id))!;
async function queuedEventsOf(rule: RuleRecord, count: number): Promise<string[]> {
  const ids = await seedEvents(db.pool, { organizationId: ORG, count, status: 'queued', changedAt: new Date(T0) });
  await db.pool.query('UPDATE events SET provider_id = $1 WHERE id = ANY($2::uuid[])', [rule.id, ids]);
  await reopenEvents(db.pool, ids);
  return ids;
}
const statusesOf = async (ids: string[]) =>
  (await db.pool.query<{ status: string }>('SELECT status FROM events WHERE id = ANY($1::uuid[])', [ids])).rows.map(
    (r) => r.status,
  );
const auditsOf = (rule: RuleRecord, action = 'rule.unhealthy') =>
  db.prisma.auditEntry.findMany({ where: { action, resourceId: rule.id }, orderBy: { createdAt: 'asc' } });

describe('rule health after attempts', () => {
  it('turns unhealthy once failures have gone on for the span, pausing queued events, audited and notified', async () => {
    const { health, notices, published, notify, at } = setup();
    let rule = await newRule();
    const queued = await queuedEventsOf(rule, 2);

    at(0);
    await health.afterAttempt(ORG, rule, { outcome: failed, delivered: false }, notify);
    rule = await reload(rule);
    expect(rule).toMatchObject({ health: 'healthy', failingSince: new Date(T0) });

    at(5 * DAY - 1_000);
    await health.afterAttempt(ORG, rule, { outcome: failed, delivered: false }, notify);
    expect(await reload(rule)).toMatchObject({ health: 'healthy', failingSince: new Date(T0) });
    expect(await statusesOf(queued)).toEqual(['queued', 'queued']);

    at(5 * DAY);
    await health.afterAttempt(ORG, rule, { outcome: failed, delivered: false }, notify);
    const since = new Date(T0 + 5 * DAY);
    expect(await reload(rule)).toMatchObject({
      health: 'unhealthy',
      unhealthyReason: 'failing',
      unhealthySince: since,
    });
    expect(await statusesOf(queued)).toEqual(['paused', 'paused']);
    expect(published.map((m) => m.type === 'event.status' && m.data.status)).toEqual(['paused', 'paused']);
    const [entry, ...more] = await auditsOf(rule);
    expect(more).toHaveLength(0);
    expect(entry).toMatchObject({ actorUserId: SYSTEM_ACTOR.id, actorEmail: SYSTEM_ACTOR.email, resourceType: 'rule' });
    expect(entry!.metadata).toMatchObject({ reason: 'failing', paused_events: 2, response_status: 503 });
    expect(notices).toEqual([
      {
        type: 'rule.unhealthy',
        data: {
          rule: { id: rule.id, source: 'health', target_url: 'http://target.example/hook' },
          reason: 'failing',
          since: since.toISOString(),
        },
      },
    ]);

    // Another worker with a stale (healthy) rule sees the next failure: nothing happens twice.
    at(5 * DAY + 1_000);
    await health.afterAttempt(ORG, rule, { outcome: failed, delivered: false }, notify);
    expect(await auditsOf(rule)).toHaveLength(1);
    expect(notices).toHaveLength(1);
  });

  it('a success in between ends the failing run: the span starts again at the next failure', async () => {
    const { health, notify, at } = setup();
    let rule = await newRule();
    at(0);
    await health.afterAttempt(ORG, rule, { outcome: failed, delivered: false }, notify);
    rule = await reload(rule);
    at(3 * DAY);
    await health.afterAttempt(ORG, rule, { outcome: ok, delivered: true }, notify);
    rule = await reload(rule);
    expect(rule.failingSince).toBeNull();

    at(4 * DAY);
    await health.afterAttempt(ORG, rule, { outcome: failed, delivered: false }, notify);
    rule = await reload(rule);
    at(6 * DAY); // 6 days after the first failure, 2 after the run began again
    await health.afterAttempt(ORG, rule, { outcome: failed, delivered: false }, notify);
    expect(await reload(rule)).toMatchObject({ health: 'healthy', failingSince: new Date(T0 + 4 * DAY) });
  });

  it("uses the rule's own span over the setting", async () => {
    const { health, notify, at } = setup();
    let rule = await newRule({ unhealthyAfterSeconds: 3_600 });
    at(0);
    await health.afterAttempt(ORG, rule, { outcome: failed, delivered: false }, notify);
    rule = await reload(rule);
    at(3_600_000);
    await health.afterAttempt(
      ORG,
      rule,
      { outcome: { kind: 'network', code: 'ECONNREFUSED', message: 'x' }, delivered: false },
      notify,
    );
    expect(await reload(rule)).toMatchObject({ health: 'unhealthy', unhealthyReason: 'failing' });
  });

  it('a 410 turns the rule unhealthy at once (reason gone), before the outcome is stored', async () => {
    const { health, notices, notify, turned, at } = setup();
    const rule = await newRule();
    const [cause, other] = await queuedEventsOf(rule, 2);
    at(1_000);
    expect(await health.gone(ORG, cause!, rule, notify)).toBe('fail');
    expect(await reload(rule)).toMatchObject({
      health: 'unhealthy',
      unhealthyReason: 'gone',
      unhealthySince: new Date(T0 + 1_000),
    });
    // The event whose attempt got the 410 is left to its own outcome (it fails); the rule's others wait.
    expect(await statusesOf([cause!, other!])).toEqual(['queued', 'paused']);
    expect((await auditsOf(rule))[0]!.metadata).toMatchObject({
      reason: 'gone',
      response_status: 410,
      paused_events: 1,
    });
    expect(notices.map((n) => n.data.reason)).toEqual(['gone']);
    // Every worker is told, so none attempts the rule on a cached healthy copy.
    expect(turned).toEqual([rule.id]);
    // The 410 itself changes nothing more after the outcome is stored.
    await health.afterAttempt(ORG, rule, { outcome: gone, delivered: false }, notify);
    expect(await auditsOf(rule)).toHaveLength(1);
  });

  it('a 410 met on a rule another attempt already turned pauses its event instead of failing it, audited', async () => {
    const { health, notices, notify, turned, published } = setup();
    const rule = await newRule(); // the healthy copy a worker still remembers
    const [first, second] = await queuedEventsOf(rule, 2);
    expect(await health.gone(ORG, first!, rule, notify)).toBe('fail');
    await db.pool.query(`UPDATE events SET status = 'queued' WHERE id = $1`, [second]); // sent after the transition
    await reopenEvents(db.pool, [second!]);
    published.length = 0;

    expect(await health.gone(ORG, second!, rule, notify)).toBe('pause');
    expect(await health.pauseGone(ORG, second!, rule)).toEqual({ stop: 'paused' });
    expect(await statusesOf([second!])).toEqual(['paused']);
    expect(published).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ id: second, status: 'paused' }) }),
    ]);
    // One transition, one notice; the later pause has its own entry naming the event.
    expect(notices).toHaveLength(1);
    expect(turned).toEqual([rule.id]);
    const [entry, ...more] = await auditsOf(rule, 'rule.event_paused');
    expect(more).toHaveLength(0);
    expect(entry).toMatchObject({ actorUserId: SYSTEM_ACTOR.id, resourceType: 'rule' });
    expect(entry!.metadata).toEqual({ event_id: second, response_status: 410 });
  });

  it('costs no round trip for a healthy rule that succeeds, and one to start a failing run', async () => {
    const { health, calls, notify } = setup();
    const rule = await newRule();
    for (let i = 0; i < 3; i++) {
      expect(await health.beforeAttempt(ORG, 'unused', rule)).toEqual({ rule });
      await health.afterAttempt(ORG, rule, { outcome: ok, delivered: true }, notify);
    }
    expect(calls).toEqual([]);
    await health.afterAttempt(ORG, rule, { outcome: failed, delivered: false }, notify);
    expect(calls).toEqual(['markFailing']);
  });
});

describe('rule health before attempts', () => {
  it("pauses a queued event of an unhealthy rule and tells the feed; a stale cache of a resumed rule doesn't", async () => {
    const { health, published } = setup();
    const rule = await newRule();
    const [first, second] = await queuedEventsOf(rule, 2);
    await db.pool.query(`UPDATE providers SET health = 'unhealthy', unhealthy_reason = 'gone' WHERE id = $1`, [
      rule.id,
    ]);
    const unhealthy = await reload(rule);

    expect(await health.beforeAttempt(ORG, first!, unhealthy)).toEqual({ stop: 'paused' });
    expect(await statusesOf([first!])).toEqual(['paused']);
    // A pause after the transition is audited as such (the transition's entry counts only its own).
    expect((await auditsOf(rule, 'rule.event_paused')).map((e) => e.metadata)).toEqual([
      { event_id: first, response_status: null },
    ]);
    expect(published).toEqual([
      expect.objectContaining({ type: 'event.status', data: expect.objectContaining({ id: first, status: 'paused' }) }),
    ]);
    // Already paused (another worker's job for it): nothing to do.
    expect(await health.beforeAttempt(ORG, first!, unhealthy)).toEqual({ stop: 'skipped' });
    expect(await auditsOf(rule, 'rule.event_paused')).toHaveLength(1);

    // Resumed since the worker cached it: the event goes ahead, health as the resume left it.
    await createRuleHealthRepository(db.pool).resume(ORG, rule.id, () => ({
      actorUserId: null,
      actorEmail: null,
      action: 'rule.resumed',
      resourceType: 'rule',
      resourceId: rule.id,
    }));
    const go = await health.beforeAttempt(ORG, second!, unhealthy);
    expect(go).toEqual({ rule: expect.objectContaining({ id: rule.id, health: 'healthy', failingSince: null }) });
    expect(await statusesOf([first!, second!])).toEqual(['queued', 'queued']);
  });
});
