import { createEventSearchRepository } from '@relay/db';
import { createOrganization, startPipeline, userCredential, type Pipeline } from './harness';

// A page's total is an exact count up to 10,000 matches; above, the planner's estimate, and the
// envelope says so (counting a million rows on every page would cost more than the page).
describe('event list totals', () => {
  let pipeline: Pipeline;
  let viewer: string;

  beforeAll(async () => {
    pipeline = await startPipeline({ worker: false });
    const orgId = await createOrganization(pipeline, 'many-events');
    viewer = (await userCredential(pipeline, 'viewer', orgId)).authorization;
    await pipeline.store.pool.query(
      `WITH e AS (
         INSERT INTO events (id, organization_id, source, body, headers, status, created_at, updated_at)
         SELECT relay_uuid7(), $1, CASE WHEN n <= 5 THEN 'rare' ELSE 'github' END, convert_to('{}', 'UTF8'),
           '{}'::jsonb, 'delivered', now() AT TIME ZONE 'UTC' - make_interval(secs => n), now() AT TIME ZONE 'UTC'
         FROM generate_series(1, 10050) AS n
         RETURNING id, organization_id)
       INSERT INTO event_search_pending (event_id, organization_id) SELECT id, organization_id FROM e`,
      [orgId],
    );
    await pipeline.store.pool.query('ANALYZE events');
    await createEventSearchRepository(pipeline.store.pool).indexPending(20_000);
    await pipeline.store.pool.query('ANALYZE event_search_chunks');
  });
  afterAll(() => pipeline.close());

  const list = async (query: string) =>
    (await pipeline.http.get(`/events?${query}`).set('authorization', viewer).expect(200)).body;

  it('estimates past 10,000 matches and says so', async () => {
    const page = await list('per_page=50');
    expect(page.total_exact).toBe(false);
    expect(page.total).toBeGreaterThan(10_000);
    expect(page.pages).toBe(Math.ceil(page.total / 50));
    expect(page.events).toHaveLength(50);
  });

  // A term in most events is answered from the newest events, with an estimated total; a rare one by the
  // trigram index, counted exactly.
  it('estimates the total of a search found in most events, and counts a rare one', async () => {
    const common = await list('search=github&per_page=50');
    expect(common.total_exact).toBe(false);
    expect(common.total).toBeGreaterThan(9_000);
    expect(common.events).toHaveLength(50);
    expect(common.events.every((e: { source: string }) => e.source === 'github')).toBe(true);
    const times = common.events.map((e: { created_at: string }) => e.created_at);
    expect([...times].sort().reverse()).toEqual(times);

    const second = await list('search=github&per_page=50&page=2');
    expect(second.events).toHaveLength(50);
    expect(second.events[0].created_at < common.events[49].created_at).toBe(true);

    // A page past the newest events' matches: found once through the index, so counted exactly at any size.
    const far = await list('search=github&per_page=50&page=20');
    expect(far).toMatchObject({ total: 10_045, total_exact: true });
    expect(far.events).toHaveLength(50);
    const farTimes = far.events.map((e: { created_at: string }) => e.created_at);
    expect([...farTimes].sort().reverse()).toEqual(farTimes);
    expect(farTimes[0] < second.events[49].created_at).toBe(true);

    const rare = await list('search=rare&per_page=50');
    expect(rare).toMatchObject({ total: 5, total_exact: true });
    expect(rare.events).toHaveLength(5);
  });

  it('counts exactly below the cap', async () => {
    const page = await list('source=rare');
    expect(page).toMatchObject({ total: 5, total_exact: true, pages: 1 });
  });
});
