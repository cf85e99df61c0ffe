import { createEventSweepRepository } from '@relay/db';
import { startTargetServer, waitFor, type TargetServer } from '@relay/test-support';
import { startPipeline, userCredential, type Pipeline } from './harness';

// Endpoint health end to end (docs/rules.md, "Endpoint health"): a 410 turns a rule unhealthy at once, its
// events wait as `paused` with no attempts, and an admin's resume delivers them. The span of failures is
// measured with a fake clock in apps/delivery-worker/src/rule-health.test.ts; here it is backdated.

let pipeline: Pipeline;
let target: TargetServer;
let admin: string;
beforeAll(async () => {
  target = await startTargetServer();
  // Every delivery reads its rule, so a health change applies to the very next one.
  pipeline = await startPipeline({ worker: { RULE_CACHE_MS: '0' } });
  admin = (await userCredential(pipeline, 'admin')).authorization;
});
afterAll(async () => {
  await pipeline.close();
  await target.close();
});
beforeEach(() => target.replyWith(200));

const prisma = () => pipeline.store.prisma;
const createRule = async (source: string, extra: object = {}) =>
  (
    await pipeline.http
      .post('/rules')
      .set('authorization', admin)
      .send({ source, target_url: `${target.url}/${source}`, ...extra })
      .expect(201)
  ).body.id as string;
const ingest = async (source: string) =>
  (await pipeline.http.post(`/${source}`).set('content-type', 'application/json').send('{"n":1}').expect(202)).body
    .id as string;
const ruleOf = async (id: string) =>
  (await pipeline.http.get(`/rules/${id}`).set('authorization', admin).expect(200)).body;
const requestsTo = (source: string) => target.requests.filter((r) => r.url === `/${source}`).length;

describe('endpoint health', () => {
  it('a 410 turns the rule unhealthy at once; its events pause with no attempts until resumed', async () => {
    const ruleId = await createRule('gone');
    target.replyWith(410);
    const first = await ingest('gone');
    // A 410 is final for the event that got it.
    expect(await pipeline.waitForStatus(first, 'failed')).toMatchObject({
      failureReason: 'http_status',
      attemptCount: 1,
    });
    const unhealthy = await waitFor(async () => {
      const rule = await ruleOf(ruleId);
      return rule.health.status === 'unhealthy' ? rule : undefined;
    });
    expect(unhealthy.health).toMatchObject({ status: 'unhealthy', reason: 'gone', since: expect.any(String) });
    const audit = await prisma().auditEntry.findFirstOrThrow({
      where: { action: 'rule.unhealthy', resourceId: ruleId },
    });
    expect(audit.metadata).toMatchObject({ reason: 'gone', response_status: 410 });

    const later = [await ingest('gone'), await ingest('gone')];
    for (const id of later) expect(await pipeline.waitForStatus(id, 'paused')).toMatchObject({ attemptCount: 0 });
    expect(requestsTo('gone')).toBe(1);

    // Every consumer of statuses knows `paused`: the list filter and the statistics.
    const listed = await pipeline.http.get('/events?status=paused').set('authorization', admin).expect(200);
    expect(listed.body.events.map((e: { id: string }) => e.id).sort()).toEqual([...later].sort());
    const stats = await pipeline.http.get('/stats').set('authorization', admin).expect(200);
    expect(stats.body.by_status).toMatchObject({ paused: 2, failed: 1 });
    expect(stats.body.by_source).toEqual([expect.objectContaining({ source: 'gone', paused: 2 })]);
    // The sweeper hands queued events to the queue, never paused ones.
    const sweep = createEventSweepRepository(prisma());
    const swept = [
      ...(await sweep.findQueuedPage(100)),
      ...(await sweep.findOverdue(new Date(Date.now() + 60_000), 100)),
    ];
    expect(swept.map((e) => e.id)).not.toEqual(expect.arrayContaining([later[0]]));
    // A paused event is not retried on its own: its rule is resumed.
    const refused = await pipeline.http.post(`/events/${later[0]}/retry`).set('authorization', admin).expect(409);
    expect(refused.body).toMatchObject({ code: 'event_paused', status: 409 });
    expect(refused.body.detail).toContain('POST /rules/{id}/resume');

    target.replyWith(200);
    const resumed = await pipeline.http.post(`/rules/${ruleId}/resume`).set('authorization', admin).expect(200);
    expect(resumed.body).toMatchObject({
      resumed_events: 2,
      rule: { id: ruleId, health: { status: 'healthy', reason: null, since: null, failing_since: null } },
    });
    for (const id of later) await pipeline.waitForStatus(id, 'delivered');
    expect(requestsTo('gone')).toBe(3);
    const entry = await prisma().auditEntry.findFirstOrThrow({ where: { action: 'rule.resumed', resourceId: ruleId } });
    expect(entry.metadata).toMatchObject({ resumed_events: 2 });
    // The first event failed for good: a resume releases paused events only.
    expect((await pipeline.eventById(first))?.status).toBe('failed');
  });

  it('turns unhealthy (failing) once failures have lasted the span; a success in between starts it again', async () => {
    const ruleId = await createRule('flaky', { unhealthy_after_seconds: 3_600 });
    const hoursAgo = (h: number) => new Date(Date.now() - h * 3_600_000);
    // A run of failures that began two hours ago, then a success: the run ends.
    await prisma().rule.update({ where: { id: ruleId }, data: { failingSince: hoursAgo(2) } });
    await pipeline.waitForStatus(await ingest('flaky'), 'delivered');
    expect((await ruleOf(ruleId)).health).toMatchObject({ status: 'healthy', failing_since: null });

    // A failure starts a new run: under the span, still healthy.
    target.replyWith(500);
    await ingest('flaky');
    await waitFor(async () => (await ruleOf(ruleId)).health.failing_since !== null);
    expect((await ruleOf(ruleId)).health.status).toBe('healthy');

    // The run backdated past the span: the next failure turns the rule unhealthy. A new event's first attempt
    // is never its last, so it is queued for a retry (or not yet tried) then, and ends paused either way.
    await prisma().rule.update({ where: { id: ruleId }, data: { failingSince: hoursAgo(2) } });
    await pipeline.waitForStatus(await ingest('flaky'), 'paused', 15_000);
    expect((await ruleOf(ruleId)).health).toMatchObject({ status: 'unhealthy', reason: 'failing' });
  });

  it('resume: admins only, 404 for an unknown rule, and turning a rule inactive leaves its health alone', async () => {
    const ruleId = await createRule('sick');
    await prisma().rule.update({
      where: { id: ruleId },
      data: { health: 'unhealthy', unhealthyReason: 'gone', unhealthySince: new Date() },
    });
    const viewer = (await userCredential(pipeline, 'viewer')).authorization;
    await pipeline.http.post(`/rules/${ruleId}/resume`).set('authorization', viewer).expect(403);
    await pipeline.http
      .post('/rules/00000000-0000-7000-8000-00000000dead/resume')
      .set('authorization', admin)
      .expect(404);

    await pipeline.http.patch(`/rules/${ruleId}`).set('authorization', admin).send({ active: false }).expect(200);
    expect((await ruleOf(ruleId)).health).toMatchObject({ status: 'unhealthy', reason: 'gone' });
    // Resuming with nothing paused is allowed: the rule is healthy again.
    const resumed = await pipeline.http.post(`/rules/${ruleId}/resume`).set('authorization', admin).expect(200);
    expect(resumed.body).toMatchObject({ resumed_events: 0, rule: { active: false, health: { status: 'healthy' } } });
  });
});
