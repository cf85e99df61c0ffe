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
      `INSERT INTO events (id, organization_id, source, body, headers, status, created_at, updated_at)
       SELECT gen_random_uuid(), $1, CASE WHEN n <= 5 THEN 'rare' ELSE 'github' END, convert_to('{}', 'UTF8'),
         '{}'::jsonb, 'delivered', now() AT TIME ZONE 'UTC' - make_interval(secs => n), now() AT TIME ZONE 'UTC'
       FROM generate_series(1, 10050) AS n`,
      [orgId],
    );
    await pipeline.store.pool.query('ANALYZE events');
  }, 60_000);
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

  it('counts exactly below the cap', async () => {
    const page = await list('source=rare');
    expect(page).toMatchObject({ total: 5, total_exact: true, pages: 1 });
  });
});
