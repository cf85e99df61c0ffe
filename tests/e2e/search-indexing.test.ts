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

  const candidates = async (term: string) => {
    const keys = termSearchKeys(term);
    const { rows } = await pipeline.store.pool.query<{ id: string }>(
      `SELECT x.id FROM relay_search_candidates((SELECT organization_id FROM events LIMIT 1), $1::int[], $2::int[])
         AS x(id)`,
      [keys.chunk, keys.event],
    );
    return rows.map((r) => r.id).sort();
  };

  it("keeps an id in its event's own keys, and what most of a chunk's events hold in the chunk", async () => {
    const repo = createEventSearchRepository(pipeline.store.pool);
    await repo.indexPending(10_000);
    const sha = '6113728f27ae82c7b1a177c8d03f9e96e0adf246';
    const withSha = await ingest(`commit ${sha} on 20261205`);
    const other = await ingest('commit 6113728f27ae82c7000000000000000000000000 on 20261205');
    const third = await ingest('commit 0123456789abcdef0123456789abcdef01234567 on 20261205');
    const fourth = await ingest('commit fedcba9876543210fedcba9876543210fedcba98 on 20261205');
    const all = [withSha, other, third, fourth].sort();
    await repo.indexPending(10_000);
    const holds = async (table: 'event_search_keys' | 'event_search_chunks', term: string) =>
      query(
        `SELECT count(*)::int AS n FROM ${table} WHERE keys @> $1::int[] AND ${
          table === 'event_search_keys' ? 'event_id = ANY($2::uuid[])' : 'event_ids && $2::uuid[]'
        }`,
        [termSearchKeys(term).event, all],
      );
    // One event in four: its own; every event, or two in four: the chunk's.
    expect(termSearchKeys('B1A177C8D03F').chunk).toEqual([]);
    expect(await holds('event_search_keys', 'B1A177C8D03F')).toBe(1);
    expect(await holds('event_search_chunks', 'B1A177C8D03F')).toBe(0);
    for (const term of ['20261205', '6113728F27AE82C7']) {
      expect(await holds('event_search_keys', term)).toBe(0);
      expect(await holds('event_search_chunks', term)).toBe(1);
    }
    // The id's own keys lead; the chunk's keys make its events candidates.
    expect(await candidates('B1A177C8D03F')).toEqual([withSha]);
    expect(await candidates('on 20261205')).toEqual(all);
    const ids = async (term: string) =>
      (await pipeline.http.get('/events').query({ search: term }).set('authorization', admin).expect(200)).body.events
        .map((e: { id: string }) => e.id)
        .sort() as string[];
    expect(await ids('B1A177C8D03F')).toEqual([withSha]);
    expect(await ids('6113728F27AE82C7')).toEqual([withSha, other].sort());
    // Both kinds of key: "on " per chunk, "f24"… per event, "202"… in the chunk's share.
    expect(await ids('adf246 on 20261205')).toEqual([withSha]);
    await pipeline.http.delete(`/events/${withSha}`).set('authorization', admin).expect(204);
    expect(await query('SELECT count(*)::int AS n FROM event_search_keys WHERE event_id = $1', [withSha])).toBe(0);
    expect(await ids('B1A177C8D03F')).toEqual([]);
  });

  it("narrows each side's candidates by the other: an event must hold the term's own keys and sit in a chunk", async () => {
    const repo = createEventSearchRepository(pipeline.store.pool);
    await repo.indexPending(10_000);
    const a = await ingest('abc12345 bravo');
    await repo.indexPending(10_000);
    // b, c, d and e share a chunk; a is in another.
    const b = await ingest('abc12345 beta');
    const others = [await ingest('beta only'), await ingest('beta too'), await ingest('beta three')];
    await repo.indexPending(10_000);
    // Whichever side leads (the statistics decide), b's chunk-mates are not candidates: the id's keys are b's own, not
    // its chunk's (one event in four). a's chunk lacks "beta", which only the words' side asks (the id's side leaves
    // the words to the text check).
    for (const term of ['abc12345 beta', 'c12345 beta']) {
      expect(await candidates(term)).toContain(b);
      expect((await candidates(term)).filter((id) => others.includes(id))).toEqual([]);
      const found = await pipeline.http.get('/events').query({ search: term }).set('authorization', admin);
      expect(found.body.events.map((e: { id: string }) => e.id)).toEqual([b]);
    }
    expect(await candidates('beta')).toEqual([b, ...others].sort());
    expect(await candidates('abc12345')).toEqual([a, b].sort());
  });

  it("finds what a chunk's events share by the chunk, and keeps it there when one of them is deleted", async () => {
    const repo = createEventSearchRepository(pipeline.store.pool);
    await repo.indexPending(10_000);
    const shared = [await ingest('shared-run 777444111'), await ingest('shared-run 777444111')];
    const lone = await ingest('lone-run 999888777666');
    await repo.indexPending(10_000);
    const chunkHolds = async (term: string) =>
      query('SELECT count(*)::int AS n FROM event_search_chunks WHERE $1 = ANY(event_ids) AND keys @> $2::int[]', [
        shared[1],
        termSearchKeys(term).event,
      ]);
    expect(await chunkHolds('777444111')).toBe(1);
    expect(await chunkHolds('999888777666')).toBe(0);
    await pipeline.http.delete(`/events/${shared[0]}`).set('authorization', admin).expect(204);
    expect(await repo.rebuildStale(10)).toBeGreaterThanOrEqual(1);
    // The kept event's share stays in the rebuilt chunk (its own row never held it).
    expect(await chunkHolds('777444111')).toBe(1);
    // Both events of the chunk are candidates for what the chunk holds; the text check leaves one.
    expect(await candidates('777444111')).toEqual([shared[1]!, lone].sort());
    expect((await search('777444111')).events.map((e: { id: string }) => e.id)).toEqual([shared[1]]);
    expect((await search('999888777666')).events.map((e: { id: string }) => e.id)).toEqual([lone]);
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
    let clock = 0;
    let counts = 0;
    const indexer = createSearchIndexer({
      search: {
        ...repo,
        countPending: (cap: number) => {
          counts++;
          return repo.countPending(cap);
        },
      },
      logger: pino({ level: 'silent' }),
      batchSize: 2,
      busy: () => busy,
      maxPendingWhileBusy: 5,
      now: () => clock,
    });
    for (let i = 0; i < 3; i++) await ingest(`yield-${i}`);
    expect(await indexer.runOnce()).toBe(0);
    expect(await count('event_search_pending')).toBe(3);
    for (let i = 3; i < 8; i++) await ingest(`yield-${i}`);
    // Under the bound at the last count: counted again a second later.
    clock += 999;
    expect(await indexer.runOnce()).toBe(0);
    expect(counts).toBe(1);
    clock += 1;
    expect(await indexer.runOnce()).toBe(2);
    expect(counts).toBe(2);
    // Over the bound at the last count: a batch per run, counted again a second later (4 pending, under it).
    expect(await indexer.runOnce()).toBe(2);
    expect(counts).toBe(2);
    clock += 1_000;
    expect(await indexer.runOnce()).toBe(0);
    expect(counts).toBe(3);
    expect(await count('event_search_pending')).toBe(4);
    // Pending events are found all the same.
    expect((await search('yield-')).total).toBe(8);
    busy = false;
    expect(await indexer.runOnce()).toBe(4);
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

  it('indexes one batch per run while deliveries start, and the whole backlog once none has since its last run', async () => {
    const repo = createEventSearchRepository(pipeline.store.pool);
    await repo.indexPending(10_000);
    let started = 0;
    let batches = 0;
    const indexer = createSearchIndexer({
      search: {
        ...repo,
        indexPending: (limit: number) => {
          batches++;
          return repo.indexPending(limit);
        },
      },
      logger: pino({ level: 'silent' }),
      batchSize: 2,
      busy: () => false,
      started: () => started,
    });
    for (let i = 0; i < 9; i++) await ingest(`catch-up-${i}`);
    // Deliveries started since the indexer was made (and again before each run): a batch per run.
    started += 3;
    expect(await indexer.runOnce()).toBe(2);
    started += 1;
    expect(await indexer.runOnce()).toBe(2);
    expect(batches).toBe(2);
    expect(await count('event_search_pending')).toBe(5);
    // None started since the last run: the rest back to back, three batches (2, 2, 1).
    expect(await indexer.runOnce()).toBe(5);
    expect(batches).toBe(5);
    expect(await count('event_search_pending')).toBe(0);
    expect((await search('catch-up-')).total).toBe(9);
  });

  it('stops draining a backlog between batches when a delivery starts', async () => {
    const repo = createEventSearchRepository(pipeline.store.pool);
    await repo.indexPending(10_000);
    let started = 0;
    const indexer = createSearchIndexer({
      search: {
        ...repo,
        // A delivery starts while the first batch is being indexed.
        indexPending: async (limit: number) => {
          const indexed = await repo.indexPending(limit);
          started++;
          return indexed;
        },
      },
      logger: pino({ level: 'silent' }),
      batchSize: 2,
      busy: () => false,
      started: () => started,
    });
    for (let i = 0; i < 6; i++) await ingest(`drain-stop-${i}`);
    expect(await indexer.runOnce()).toBe(2);
    expect(await count('event_search_pending')).toBe(4);
  });

  // The api refuses such bodies; one stored around it (by hand, a restore) must not stall the indexer.
  it('indexes a body that is not UTF-8 by its escaped bytes, and the events around it normally', async () => {
    const repo = createEventSearchRepository(pipeline.store.pool);
    await repo.indexPending(10_000);
    const before = await ingest('around-the-bad-one-1');
    const { rows } = await pipeline.store.pool.query<{ id: string }>(
      `WITH e AS (
         INSERT INTO events (id, organization_id, source, body, headers, status, created_at, updated_at)
         SELECT relay_uuid7(), organization_id, 'raw', '\\x7b2261223a227a7a657363617065647a7aff227d'::bytea,
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
      // The first call may join the run that indexed it, still going on (rebuilding stale chunks); after it, none.
      await worker.indexSearchNow();
      expect(await worker.indexSearchNow()).toBe(0);
    } finally {
      await worker.close();
    }
  });
});
