import { startPipeline, type Pipeline } from './harness';

// History is partitioned by the time in event ids (docs/partitioning.md) with no DEFAULT partition: an event whose
// time no partition covers is refused by Postgres (23514), which ingest must answer as the documented 503 with
// Retry-After (providers retry), never as a 500 or a lost event, and accept again once the partition is there.
describe('ingest into partitioned history', () => {
  let pipeline: Pipeline;
  beforeAll(async () => {
    pipeline = await startPipeline({ api: { DEFAULT_TARGET_URL: 'http://127.0.0.1:9/hook' }, worker: false });
  });
  afterAll(() => pipeline.close());

  const send = () => pipeline.http.post('/github').set('content-type', 'application/json').send('{"n":1}');
  const partitionsOf = async (table: string) =>
    (
      await pipeline.store.pool.query<{ name: string; bound: string }>(
        `SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound FROM pg_inherits i
         JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = $1::regclass ORDER BY c.relname`,
        [table],
      )
    ).rows;

  it('stores an event, its attempts and its search keys in the partitions of its id', async () => {
    expect((await partitionsOf('events')).map((p) => p.name)).toContain('events_first');
    const res = await send().expect(202);
    const { rows } = await pipeline.store.pool.query<{ part: string }>(
      'SELECT tableoid::regclass::text AS part FROM events WHERE id = $1',
      [res.body.id],
    );
    expect(rows).toEqual([{ part: 'events_first' }]);
    // Parents and the first partition agree on bounds for all three tables of the family.
    const bounds = await Promise.all(['events', 'delivery_attempts', 'event_search_keys'].map(partitionsOf));
    expect(bounds[1]!.map((p) => p.bound)).toEqual(bounds[0]!.map((p) => p.bound));
    expect(bounds[2]!.map((p) => p.bound)).toEqual(bounds[0]!.map((p) => p.bound));
  });

  it('answers 503 with Retry-After while no partition covers now, and stores again once one does', async () => {
    const first = (await partitionsOf('events')).find((p) => p.name === 'events_first')!;
    const stored = await pipeline.store.prisma.event.count();
    // Without its first partition, events covers no moment of today.
    await pipeline.store.pool.query('DELETE FROM events');
    await pipeline.store.pool.query('ALTER TABLE events DETACH PARTITION events_first');
    try {
      const res = await send().expect(503);
      expect(res.headers['retry-after']).toBeDefined();
      expect(res.body).toMatchObject({ code: 'database_unavailable' });
    } finally {
      await pipeline.store.pool.query(`ALTER TABLE events ATTACH PARTITION events_first ${first.bound}`);
    }
    const res = await send().expect(202);
    expect(await pipeline.eventById(res.body.id)).toMatchObject({ id: res.body.id });
    expect(stored).toBeGreaterThan(0);
  });
});
