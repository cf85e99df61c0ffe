import { termSearchKeys } from '@relay/core';
import { createEventSearchRepository } from '@relay/db';
import { pino } from 'pino';
import { createSearchIndexer } from '../../apps/delivery-worker/src/search-indexer';
import { startPipeline, userCredential, type Pipeline } from './harness';

// Ingest only marks new events pending; the workers' indexer moves them into index chunks in batches.
// Search must find an event in either state, once, and nothing may be indexed twice or left behind.
describe('background search indexing', () => {
  let pipeline: Pipeline;
  let admin: string;
  const query = async (sql: string, params: unknown[] = []) =>
    (await pipeline.store.pool.query<{ n: number }>(sql, params)).rows[0]!.n;
  const count = async (table: 'event_search' | 'event_search_pending', id?: string) =>
    table === 'event_search'
      ? // Index chunks holding the event.
        query('SELECT count(*)::int AS n FROM event_search_chunks WHERE event_ids @> ARRAY[$1]::uuid[]', [id])
      : query(`SELECT count(*)::int AS n FROM ${table}${id ? ' WHERE event_id = $1' : ''}`, id ? [id] : []);
  const ingest = async (term: string) =>
    (await pipeline.http.post('/github').set('content-type', 'application/json').send({ note: term }).expect(202)).body
      .id as string;
  const search = async (term: string) =>
    (await pipeline.http.get(`/events?search=${term}`).set('authorization', admin).expect(200)).body;

  beforeAll(async () => {
    // No worker: indexing happens only when a test asks for it.
    pipeline = await startPipeline({ worker: false });
    admin = (await userCredential(pipeline, 'admin')).authorization;
  });
  afterAll(() => pipeline.close());

  it('finds a new event before it is indexed, and once after', async () => {
    const id = await ingest('needle-before-index');
    expect(await count('event_search_pending', id)).toBe(1);
    expect(await count('event_search', id)).toBe(0);
    const before = await search('needle-before-index');
    expect(before.events.map((e: { id: string }) => e.id)).toEqual([id]);

    const indexed = await createEventSearchRepository(pipeline.store.pool).indexPending(1_000);
    expect(indexed).toBeGreaterThanOrEqual(1);
    expect(await count('event_search_pending', id)).toBe(0);
    expect(await count('event_search', id)).toBe(1);
    const after = await search('needle-before-index');
    expect(after.events.map((e: { id: string }) => e.id)).toEqual([id]);
    expect(after.total).toBe(1);
  });

  it('lets several indexers share a backlog without indexing an event twice', async () => {
    const ids = await Promise.all(Array.from({ length: 60 }, (_, i) => ingest(`shared-backlog-${i}`)));
    const repo = createEventSearchRepository(pipeline.store.pool);
    const drain = async () => {
      let total = 0;
      for (;;) {
        const n = await repo.indexPending(7);
        total += n;
        if (n < 7) return total;
      }
    };
    const [a, b, c] = await Promise.all([drain(), drain(), drain()]);
    expect(a + b + c).toBe(60);
    expect(await count('event_search_pending')).toBe(0);
    const indexed = await query(
      'SELECT count(*)::int AS n FROM event_search_chunks, unnest(event_ids) AS x(id) WHERE x.id = ANY($1::uuid[])',
      [ids],
    );
    expect(indexed).toBe(60);
    expect((await search('shared-backlog')).total).toBe(60);
  });

  it('deletes the search rows with the event, pending or indexed', async () => {
    const pending = await ingest('deleted-while-pending');
    const indexedId = await ingest('deleted-after-index');
    await createEventSearchRepository(pipeline.store.pool).indexPending(1_000);
    const late = await ingest('deleted-while-pending-2');
    for (const id of [pending, indexedId, late])
      await pipeline.http.delete(`/events/${id}`).set('authorization', admin).expect(204);
    for (const id of [pending, indexedId, late]) {
      expect(await count('event_search', id)).toBe(0);
      expect(await count('event_search_pending', id)).toBe(0);
    }
  });

  it('finds an event by an id in its payload through its own keys, and by words through its chunk', async () => {
    const repo = createEventSearchRepository(pipeline.store.pool);
    const sha = '6113728f27ae82c7b1a177c8d03f9e96e0adf246';
    const withSha = await ingest(`commit ${sha} by octo-hexer`);
    const other = await ingest('commit 6113728f27ae82c7000000000000000000000000 by octo-hexer');
    await repo.indexPending(10_000);
    const ownKeys = async (id: string, term: string) =>
      query('SELECT count(*)::int AS n FROM event_search_keys WHERE event_id = $1 AND keys @> $2::int[]', [
        id,
        termSearchKeys(term).event,
      ]);
    expect(termSearchKeys('B1A177C8D03F').chunk).toEqual([]);
    expect(await ownKeys(withSha, 'B1A177C8D03F')).toBe(1);
    expect(await ownKeys(other, 'B1A177C8D03F')).toBe(0);
    const ids = async (term: string) =>
      (await pipeline.http.get('/events').query({ search: term }).set('authorization', admin).expect(200)).body.events
        .map((e: { id: string }) => e.id)
        .sort() as string[];
    expect(await ids('B1A177C8D03F')).toEqual([withSha]);
    expect(await ids('6113728F27AE82C7')).toEqual([withSha, other].sort());
    // Both kinds of key: "by " per chunk, "f24"… per event.
    expect(await ids('adf246 by octo-hexer')).toEqual([withSha]);
    await pipeline.http.delete(`/events/${withSha}`).set('authorization', admin).expect(204);
    expect(await query('SELECT count(*)::int AS n FROM event_search_keys WHERE event_id = $1', [withSha])).toBe(0);
    expect(await ids('B1A177C8D03F')).toEqual([]);
  });

  it("narrows each side's candidates by the other: an event must hold the term's own keys and sit in a chunk", async () => {
    const repo = createEventSearchRepository(pipeline.store.pool);
    await repo.indexPending(10_000);
    const a = await ingest('abc12345 bravo');
    await repo.indexPending(10_000);
    // b and c share a chunk; a is in another.
    const b = await ingest('abc12345 beta');
    const c = await ingest('beta only');
    await repo.indexPending(10_000);
    const { rows: orgs } = await pipeline.store.pool.query<{ org: string }>(
      'SELECT organization_id AS org FROM events WHERE id = $1',
      [b],
    );
    // Whichever side leads (the statistics decide), only b holds both kinds of key.
    for (const term of ['abc12345 beta', 'c12345 beta']) {
      const keys = termSearchKeys(term);
      const { rows } = await pipeline.store.pool.query<{ id: string }>(
        'SELECT x.id FROM relay_search_candidates($1, $2::int[], $3::int[]) AS x(id)',
        [orgs[0]!.org, keys.chunk, keys.event],
      );
      expect(rows.map((r) => r.id)).toEqual([b]);
    }
    expect([a, c]).not.toContain(b);
  });

  it('takes a deleted event out of its chunk, and the next run drops its keys', async () => {
    const repo = createEventSearchRepository(pipeline.store.pool);
    await repo.indexPending(10_000);
    const kept = await ingest('chunk-mate-kept');
    const gone = await ingest('chunk-mate-qzxjv');
    await repo.indexPending(10_000);
    const chunk = async () =>
      (
        await pipeline.store.pool.query<{
          event_ids: string[];
          stale: boolean;
          gone_keys: boolean;
          kept_keys: boolean;
        }>(
          `SELECT event_ids, stale, keys @> $2::int[] AS gone_keys, keys @> $3::int[] AS kept_keys
           FROM event_search_chunks WHERE event_ids @> ARRAY[$1]::uuid[]`,
          [kept, termSearchKeys('chunk-mate-qzxjv').chunk, termSearchKeys('chunk-mate-kept').chunk],
        )
      ).rows;
    expect(await chunk()).toEqual([{ event_ids: [kept, gone], stale: false, gone_keys: true, kept_keys: true }]);
    await pipeline.http.delete(`/events/${gone}`).set('authorization', admin).expect(204);
    expect(await chunk()).toEqual([{ event_ids: [kept], stale: true, gone_keys: true, kept_keys: true }]);
    const indexer = createSearchIndexer({ search: repo, logger: pino({ level: 'silent' }), batchSize: 100 });
    await indexer.runOnce();
    expect(await chunk()).toEqual([{ event_ids: [kept], stale: false, gone_keys: false, kept_keys: true }]);
    expect((await search('chunk-mate')).events.map((e: { id: string }) => e.id)).toEqual([kept]);
    // The chunk's last event takes the chunk with it.
    const chunkId = await query('SELECT id::int AS n FROM event_search_chunks WHERE event_ids @> ARRAY[$1]::uuid[]', [
      kept,
    ]);
    await pipeline.http.delete(`/events/${kept}`).set('authorization', admin).expect(204);
    expect(await query('SELECT count(*)::int AS n FROM event_search_chunks WHERE id = $1', [chunkId])).toBe(0);
  });

  it('yields to busy deliveries until the pending events reach the bound, then indexes a batch per round', async () => {
    const repo = createEventSearchRepository(pipeline.store.pool);
    await repo.indexPending(10_000);
    let busy = true;
    const indexer = createSearchIndexer({
      search: repo,
      logger: pino({ level: 'silent' }),
      batchSize: 2,
      busy: () => busy,
      maxPendingWhileBusy: 5,
    });
    for (let i = 0; i < 3; i++) await ingest(`yield-${i}`);
    expect(await indexer.runOnce()).toBe(0);
    expect(await count('event_search_pending')).toBe(3);
    for (let i = 3; i < 8; i++) await ingest(`yield-${i}`);
    expect(await indexer.runOnce()).toBe(2);
    expect(await count('event_search_pending')).toBe(6);
    // Pending events are found all the same.
    expect((await search('yield-')).total).toBe(8);
    busy = false;
    expect(await indexer.runOnce()).toBe(6);
    expect(await count('event_search_pending')).toBe(0);
  });

  it('stops a run between batches when deliveries become busy, and follows the bound from then on', async () => {
    const repo = createEventSearchRepository(pipeline.store.pool);
    await repo.indexPending(10_000);
    let busy = false;
    const search = {
      ...repo,
      // Deliveries get busy while the first batch is being indexed.
      indexPending: async (limit: number) => {
        const indexed = await repo.indexPending(limit);
        busy = true;
        return indexed;
      },
    };
    const indexer = createSearchIndexer({
      search,
      logger: pino({ level: 'silent' }),
      batchSize: 2,
      busy: () => busy,
      maxPendingWhileBusy: 100,
    });
    for (let i = 0; i < 7; i++) await ingest(`stop-between-${i}`);
    expect(await indexer.runOnce()).toBe(2);
    expect(await count('event_search_pending')).toBe(5);
    // Busy and under the bound: nothing more until deliveries calm down.
    expect(await indexer.runOnce()).toBe(0);
    busy = false;
    search.indexPending = (limit: number) => repo.indexPending(limit);
    expect(await indexer.runOnce()).toBe(5);
  });

  // The api refuses such bodies; one stored around it (by hand, a restore) must not stall the indexer.
  it('indexes a body that is not UTF-8 by its escaped bytes, and the events around it normally', async () => {
    const repo = createEventSearchRepository(pipeline.store.pool);
    await repo.indexPending(10_000);
    const before = await ingest('around-the-bad-one-1');
    const { rows } = await pipeline.store.pool.query<{ id: string }>(
      `WITH e AS (
         INSERT INTO events (id, organization_id, source, body, headers, status, created_at, updated_at)
         SELECT gen_random_uuid(), organization_id, 'raw', '\\x7b2261223a227a7a657363617065647a7aff227d'::bytea,
           '{}'::jsonb, 'delivered',
           now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC' FROM events WHERE id = $1
         RETURNING id, organization_id)
       INSERT INTO event_search_pending (event_id, organization_id) SELECT id, organization_id FROM e RETURNING event_id AS id`,
      [before],
    );
    const after = await ingest('around-the-bad-one-2');
    expect(await repo.indexPending(10)).toBe(3);
    expect(await count('event_search_pending')).toBe(0);
    for (const id of [before, rows[0]!.id, after]) expect(await count('event_search', id)).toBe(1);
    expect(await query('SELECT count(*)::int AS n FROM event_search_escaped WHERE event_id = $1', [rows[0]!.id])).toBe(
      1,
    );
    expect((await search('around-the-bad-one')).total).toBe(2);
    // Found by its ASCII part ({"a":"zzescapedzz\377"}).
    const escaped = await search('ZZESCAPEDZZ');
    expect(escaped.events.map((e: { id: string }) => e.id)).toEqual([rows[0]!.id]);
  });

  it('a running worker indexes new events by itself', async () => {
    const worker = pipeline.startWorker({ SEARCH_INDEX_INTERVAL_MS: '50' });
    try {
      const id = await ingest('worker-indexes-me');
      const deadline = Date.now() + 10_000;
      while ((await count('event_search', id)) === 0) {
        if (Date.now() > deadline) throw new Error('the worker did not index the event');
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(await count('event_search_pending', id)).toBe(0);
      expect(await worker.indexSearchNow()).toBe(0);
    } finally {
      await worker.close();
    }
  });
});
