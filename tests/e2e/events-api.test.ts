import { DEFAULT_ORGANIZATION_ID, type OrgId } from '@relay/core';
import { createEventSearchRepository } from '@relay/db';
import { reopenEvents, newEventId as uuidv7 } from '@relay/test-support';
import { createOrganization, startPipeline, userCredential, type Pipeline } from './harness';

// Seeds events with chosen sources, statuses and times straight into the store.
async function seed(
  pipeline: Pipeline,
  orgId: OrgId,
  rows: { source: string; status?: string; minutesAgo: number; body?: object; headers?: object }[],
) {
  const ids: string[] = [];
  for (const row of rows) {
    const id = uuidv7();
    const body = JSON.stringify(row.body ?? { n: ids.length });
    const headers = JSON.stringify(row.headers ?? { 'content-type': 'application/json' });
    await pipeline.store.pool.query(
      `WITH e AS (
         INSERT INTO events (id, organization_id, source, body, headers, status, created_at, updated_at)
         VALUES ($1, $2, $3, convert_to($4, 'UTF8'), $5::jsonb, $6::"EventStatus",
           now() AT TIME ZONE 'UTC' - make_interval(mins => $7), now() AT TIME ZONE 'UTC')
         RETURNING id, organization_id)
       INSERT INTO event_search_pending (event_id, organization_id) SELECT id, organization_id FROM e`,
      [id, orgId, row.source, body, headers, row.status ?? 'delivered', row.minutesAgo],
    );
    ids.push(id);
  }
  await reopenEvents(pipeline.store.pool, ids);
  return ids;
}

describe('event history API', () => {
  let pipeline: Pipeline;
  let viewer: string;
  let ids: string[];
  let otherOrgEvent: string;
  const list = (query: string) => pipeline.http.get(`/events?${query}`).set('authorization', viewer);

  beforeAll(async () => {
    pipeline = await startPipeline({ worker: false });
    viewer = (await userCredential(pipeline, 'viewer')).authorization;
    ids = await seed(pipeline, DEFAULT_ORGANIZATION_ID, [
      { source: 'github', minutesAgo: 50, body: { action: 'opened', repo: 'octo/needle-repo' } },
      { source: 'github', status: 'failed', minutesAgo: 40 },
      { source: 'stripe', status: 'failed', minutesAgo: 30, headers: { 'stripe-signature': 'sig-haystack-42' } },
      { source: 'stripe', status: 'queued', minutesAgo: 20 },
      { source: 'github', minutesAgo: 10 },
    ]);
    const orgB = await createOrganization(pipeline, 'org-b');
    otherOrgEvent = (
      await seed(pipeline, orgB, [{ source: 'github', minutesAgo: 5, body: { repo: 'octo/needle-repo' } }])
    )[0]!;
    // Searched through the index: each organization's events in a chunk of their own.
    expect(await createEventSearchRepository(pipeline.store.pool).indexPending(1_000)).toBe(6);
  });
  afterAll(() => pipeline.close());

  const idsOf = (res: { body: { events: { id: string }[] } }) => res.body.events.map((e) => e.id);

  it('lists newest first in the page envelope', async () => {
    const res = await list('').expect(200);
    expect(idsOf(res)).toEqual([...ids].reverse());
    expect(res.body).toMatchObject({ total: 5, page: 1, per_page: 50, pages: 1 });
    expect(res.body.events[0]).toEqual(
      expect.objectContaining({
        id: ids[4],
        source: 'github',
        status: 'delivered',
        acknowledged: false,
        attempt_count: 0,
      }),
    );
  });

  it('filters by status, source, time and text, alone and combined', async () => {
    expect(idsOf(await list('status=failed').expect(200))).toEqual([ids[2], ids[1]]);
    expect(idsOf(await list('source=stripe').expect(200))).toEqual([ids[3], ids[2]]);
    const from = new Date(Date.now() - 35 * 60_000).toISOString();
    const to = new Date(Date.now() - 15 * 60_000).toISOString();
    expect(idsOf(await list(`from=${from}`).expect(200))).toEqual([ids[4], ids[3], ids[2]]);
    expect(idsOf(await list(`to=${to}`).expect(200))).toEqual([ids[3], ids[2], ids[1], ids[0]]);
    expect(idsOf(await list(`from=${from}&to=${to}`).expect(200))).toEqual([ids[3], ids[2]]);
    expect(idsOf(await list('search=NEEDLE-REPO').expect(200))).toEqual([ids[0]]);
    expect(idsOf(await list('search=sig-haystack').expect(200))).toEqual([ids[2]]);
    expect(idsOf(await list('search=stripe&status=failed').expect(200))).toEqual([ids[2]]);
    expect(
      idsOf(
        await list(`source=github&status=failed&from=${new Date(Date.now() - 45 * 60_000).toISOString()}`).expect(200),
      ),
    ).toEqual([ids[1]]);
    expect(idsOf(await list('needs_attention=true').expect(200))).toEqual([ids[2], ids[1]]);
    // LIKE wildcards are matched literally.
    expect(idsOf(await list('search=%25').expect(200))).toEqual([]);
  });

  it("lists each event's target and last error, as its own page shows them", async () => {
    await pipeline.store.pool.query(
      `UPDATE events SET last_error = 'HTTP 503: upstream down', target_url = 'http://t/hook', failure_reason = 'http_status'
       WHERE id = $1`,
      [ids[1]],
    );
    const row = (await list('status=failed').expect(200)).body.events.find((e: { id: string }) => e.id === ids[1]);
    expect(row).toMatchObject({
      target_url: 'http://t/hook',
      failure_reason: 'http_status',
      last_error: 'HTTP 503: upstream down',
    });
    const detail = await pipeline.http.get(`/events/${ids[1]}`).set('authorization', viewer).expect(200);
    expect(detail.body.last_error).toBe('HTTP 503: upstream down');
    expect((await list('status=queued').expect(200)).body.events[0].last_error).toBeNull();
  });

  it('paginates with exact totals and refuses per_page above 200', async () => {
    const res = await list('per_page=2&page=2').expect(200);
    expect(idsOf(res)).toEqual([ids[2], ids[1]]);
    expect(res.body).toMatchObject({ total: 5, page: 2, per_page: 2, pages: 3 });
    expect(idsOf(await list('per_page=2&page=3').expect(200))).toEqual([ids[0]]);
    await list('per_page=200').expect(200);
    const refused = await list('per_page=201')
      .expect(400)
      .expect('content-type', /problem\+json/);
    expect(refused.body.code).toBe('validation_failed');
    expect((await list('status=bogus').expect(400)).body.code).toBe('validation_failed');
    expect((await list('from=yesterday').expect(400)).body.code).toBe('validation_failed');
  });

  it('shows one event with payload, headers and attempts', async () => {
    const res = await pipeline.http.get(`/events/${ids[2]}`).set('authorization', viewer).expect(200);
    expect(res.body).toMatchObject({
      id: ids[2],
      source: 'stripe',
      status: 'failed',
      payload: { n: 2 },
      headers: { 'stripe-signature': 'sig-haystack-42' },
      attempt_count: 0,
    });
    await pipeline.store.pool.query(
      `INSERT INTO delivery_attempts (id, event_id, organization_id, attempt_number, kind, target_url,
         response_status, duration_ms, started_at, finished_at)
       VALUES ($1, $2, $3, 1, 'main', 'http://t/', 500, 12, now(), now()),
         ($4, $2, $3, 2, 'main', 'http://t/', 502, 9, now() + interval '1 s', now() + interval '1 s')`,
      [uuidv7(), ids[2], DEFAULT_ORGANIZATION_ID, uuidv7()],
    );
    const attempts = await pipeline.http.get(`/events/${ids[2]}/attempts`).set('authorization', viewer).expect(200);
    expect(
      attempts.body.attempts.map((a: { attempt_number: number; response_status: number; kind: string }) => [
        a.attempt_number,
        a.response_status,
        a.kind,
      ]),
    ).toEqual([
      [1, 500, 'main'],
      [2, 502, 'main'],
    ]);
    expect(
      (await pipeline.http.get(`/events/${ids[0]}/attempts`).set('authorization', viewer).expect(200)).body.attempts,
    ).toEqual([]);
  });

  it('counts sources', async () => {
    const res = await pipeline.http.get('/events/sources').set('authorization', viewer).expect(200);
    expect(res.body.sources).toEqual([
      { source: 'github', count: 3 },
      { source: 'stripe', count: 2 },
    ]);
  });

  it("never shows another organization's events", async () => {
    await pipeline.http.get(`/events/${otherOrgEvent}`).set('authorization', viewer).expect(404);
    await pipeline.http.get(`/events/${otherOrgEvent}/attempts`).set('authorization', viewer).expect(404);
    await pipeline.http.get('/events/not-a-uuid').set('authorization', viewer).expect(404);
    expect(idsOf(await list('search=needle').expect(200))).not.toContain(otherOrgEvent);
  });
});
