import { DEFAULT_ORGANIZATION_ID } from '@relay/core';
import { createEventActionRepository } from '@relay/db';
import { reopenEvents, startTargetServer, waitFor, type TargetServer } from '@relay/test-support';
import { createOrganization, startPipeline, userCredential, type Pipeline } from './harness';

// Repository-level calls are made by no user: the audit entry names nobody.
const TEST_ACTOR = { actorUserId: null, actorEmail: null };
let pipeline: Pipeline;
let target: TargetServer;
let admin: string;

beforeAll(async () => {
  target = await startTargetServer();
  // Two attempts per run: a 500 then a 500 ends the run failed.
  pipeline = await startPipeline({
    api: { DEFAULT_TARGET_URL: `${target.url}/hook` },
    worker: { DELIVERY_MAX_ATTEMPTS: '2' },
  });
  admin = (await userCredential(pipeline, 'admin')).authorization;
});
afterAll(async () => {
  await pipeline.close();
  await target.close();
});
beforeEach(() => {
  target.requests.length = 0;
  target.replyWith(200);
});

async function ingest(source: string, body: object): Promise<string> {
  return (await pipeline.http.post(`/${source}`).send(body).expect(202)).body.id as string;
}
const auditActions = async () =>
  (await pipeline.store.prisma.auditEntry.findMany({ orderBy: { createdAt: 'asc' } })).map((e) => e.action);

describe('event actions', () => {
  it('retries a failed event: a new run, attempts appended, the same webhook-id', async () => {
    target.replyWith(500);
    const id = await ingest('retry-me', { n: 1 });
    await pipeline.waitForStatus(id, 'failed');
    expect((await pipeline.attemptsOf(id)).map((a) => a.responseStatus)).toEqual([500, 500]);
    // Searchable from the ingest path too.
    expect(
      (await pipeline.http.get('/events?search=retry-me').set('authorization', admin).expect(200)).body.total,
    ).toBe(1);

    target.replyWith(503, 200);
    await pipeline.http.post(`/events/${id}/retry`).set('authorization', admin).expect(202, { id, status: 'queued' });
    const event = await pipeline.waitForStatus(id, 'delivered');
    // The new run had its own two attempts (503 then 200): the run budget restarted.
    expect((await pipeline.attemptsOf(id)).map((a) => [a.attemptNumber, a.responseStatus])).toEqual([
      [1, 500],
      [2, 500],
      [3, 503],
      [4, 200],
    ]);
    expect(event).toMatchObject({ attemptCount: 4, failureReason: null, runStartAttempt: 2 });
    expect(new Set(target.requests.map((r) => r.headers['webhook-id']))).toEqual(new Set([id]));
    expect(await auditActions()).toContain('event.retried');
  });

  it('retries a delivered event and refuses a queued one', async () => {
    const id = await ingest('again', { n: 2 });
    await pipeline.waitForStatus(id, 'delivered');
    // An empty body acts on the primary exactly as no body does (the test above sends none).
    await pipeline.http
      .post(`/events/${id}/retry`)
      .set('authorization', admin)
      .send({})
      .expect(202, { id, status: 'queued' });
    await waitFor(
      async () => ((await pipeline.attemptsOf(id)).length === 2 ? true : undefined),
      10_000,
      'second delivery',
    );
    await pipeline.waitForStatus(id, 'delivered');

    const queued = await createQueuedEvent();
    const res = await pipeline.http.post(`/events/${queued}/retry`).set('authorization', admin).expect(409);
    expect(res.body.code).toBe('event_not_retryable');
  });

  it('acknowledges a failed event, which leaves the needs-attention view', async () => {
    target.replyWith(400);
    const id = await ingest('ack-me', { n: 3 });
    await pipeline.waitForStatus(id, 'failed');
    const attention = async () =>
      (await pipeline.http.get('/events?needs_attention=true&source=ack-me').set('authorization', admin).expect(200))
        .body.total;
    expect(await attention()).toBe(1);
    const res = await pipeline.http.post(`/events/${id}/ack`).set('authorization', admin).expect(200);
    expect(res.body).toMatchObject({ id, status: 'failed', acknowledged: true });
    expect(await attention()).toBe(0);
    expect(await auditActions()).toContain('event.acknowledged');

    target.replyWith(200);
    const delivered = await ingest('ack-me', { n: 4 });
    await pipeline.waitForStatus(delivered, 'delivered');
    expect(
      (await pipeline.http.post(`/events/${delivered}/ack`).set('authorization', admin).expect(409)).body.code,
    ).toBe('event_not_failed');
  });

  it('deletes an event and its attempts', async () => {
    const id = await ingest('delete-me', { n: 5 });
    await pipeline.waitForStatus(id, 'delivered');
    await pipeline.http.delete(`/events/${id}`).set('authorization', admin).expect(204);
    await pipeline.http.get(`/events/${id}`).set('authorization', admin).expect(404);
    expect(await pipeline.store.prisma.deliveryAttempt.count({ where: { eventId: id } })).toBe(0);
    await pipeline.http.delete(`/events/${id}`).set('authorization', admin).expect(404);
    expect(await auditActions()).toContain('event.deleted');
  });

  it('bulk-retries and bulk-deletes by ids and by filter, with counts', async () => {
    target.replyWith(400);
    const failed = [await ingest('bulk', { n: 1 }), await ingest('bulk', { n: 2 }), await ingest('bulk', { n: 3 })];
    for (const id of failed) await pipeline.waitForStatus(id, 'failed');
    target.replyWith(200);

    const byIds = await pipeline.http
      .post('/events/bulk/retry')
      .set('authorization', admin)
      .send({ ids: [failed[0]] })
      .expect(200);
    expect(byIds.body).toEqual({ affected: 1, ids: [failed[0]], truncated: false });
    await pipeline.waitForStatus(failed[0]!, 'delivered');
    const byFilter = await pipeline.http
      .post('/events/bulk/retry')
      .set('authorization', admin)
      .send({ filter: { source: 'bulk', status: 'failed' } })
      .expect(200);
    expect(byFilter.body.affected).toBe(2);
    expect(byFilter.body.ids.sort()).toEqual([failed[1], failed[2]].sort());
    for (const id of failed) await pipeline.waitForStatus(id, 'delivered');

    const delIds = await pipeline.http
      .post('/events/bulk/delete')
      .set('authorization', admin)
      .send({ ids: [failed[0], '00000000-0000-7000-8000-00000000dead'] })
      .expect(200);
    expect(delIds.body).toMatchObject({ affected: 1, ids: [failed[0]] });
    const delFilter = await pipeline.http
      .post('/events/bulk/delete')
      .set('authorization', admin)
      .send({ filter: { source: 'bulk' } })
      .expect(200);
    expect(delFilter.body.affected).toBe(2);
    expect(await pipeline.store.prisma.event.count({ where: { source: 'bulk' } })).toBe(0);
    const actions = await auditActions();
    expect(actions).toEqual(expect.arrayContaining(['events.bulk_retried', 'events.bulk_deleted']));
    const entry = await pipeline.store.prisma.auditEntry.findFirst({
      where: { action: 'events.bulk_deleted' },
      orderBy: { createdAt: 'desc' },
    });
    expect(entry?.metadata).toMatchObject({ by: 'filter', affected: 2 });
  });

  it('refuses bad bulk bodies and caps a selection', async () => {
    for (const body of [
      {},
      { ids: [] },
      { ids: ['x'] },
      { ids: [], filter: {} },
      { filter: { status: 'nope' } },
      { ids: Array.from({ length: 1001 }, () => '00000000-0000-7000-8000-000000000001') },
    ]) {
      const res = await pipeline.http.post('/events/bulk/delete').set('authorization', admin).send(body).expect(400);
      expect(res.body.code).toBe('validation_failed');
    }
  });

  it('acts on at most the cap per call and says when more matched', async () => {
    const ids = [await ingest('capped', { n: 1 }), await ingest('capped', { n: 2 }), await ingest('capped', { n: 3 })];
    for (const id of ids) await pipeline.waitForStatus(id, 'delivered');
    const actions = createEventActionRepository(pipeline.store.pool);
    const audit = () => ({ ...TEST_ACTOR, action: 'events.bulk_deleted', resourceType: 'event', resourceId: null });
    const first = await actions.bulkDelete(DEFAULT_ORGANIZATION_ID, { filter: { source: 'capped' } }, 2, audit);
    // The oldest matches go first.
    expect({ ids: [...first.ids].sort(), truncated: first.truncated }).toEqual({
      ids: ids.slice(0, 2).sort(),
      truncated: true,
    });
    expect(await actions.bulkDelete(DEFAULT_ORGANIZATION_ID, { filter: { source: 'capped' } }, 2, audit)).toEqual({
      ids: [ids[2]],
      truncated: false,
    });
  });

  it("answers 404 for another organization's events and changes nothing", async () => {
    target.replyWith(400);
    const id = await ingest('theirs', { n: 9 });
    await pipeline.waitForStatus(id, 'failed');
    const orgB = await createOrganization(pipeline, 'org-b');
    const other = (await userCredential(pipeline, 'admin', orgB)).authorization;
    for (const [method, path] of [
      ['post', `/events/${id}/retry`],
      ['post', `/events/${id}/ack`],
      ['delete', `/events/${id}`],
      ['get', `/events/${id}`],
    ] as const) {
      await pipeline.http[method](path).set('authorization', other).expect(404);
    }
    const bulk = await pipeline.http
      .post('/events/bulk/delete')
      .set('authorization', other)
      .send({ ids: [id] })
      .expect(200);
    expect(bulk.body.affected).toBe(0);
    expect(
      (
        await pipeline.http
          .post('/events/bulk/retry')
          .set('authorization', other)
          .send({ filter: {}, all: true })
          .expect(200)
      ).body.affected,
    ).toBe(0);
    expect(await pipeline.eventById(id)).toMatchObject({
      status: 'failed',
      acknowledgedAt: null,
      organizationId: DEFAULT_ORGANIZATION_ID,
    });
  });
});

/** An event that stays queued: no worker will see it (its job is never enqueued). */
async function createQueuedEvent(): Promise<string> {
  const id = '00000000-0000-7000-8000-0000000000a1';
  await pipeline.store.pool.query(
    `INSERT INTO events (id, organization_id, source, body, headers, status, next_attempt_at, created_at, updated_at)
     VALUES ($1, $2, 'queued-one', convert_to('{}', 'UTF8'), '{}'::jsonb, 'queued', now() + interval '1 hour',
       now(), now())`,
    [id, DEFAULT_ORGANIZATION_ID],
  );
  await reopenEvents(pipeline.store.pool, [id]);
  return id;
}
