import { DEFAULT_ORGANIZATION_ID } from '@relay/core';
import { createEventSearchRepository } from '@relay/db';
import { newEventId, startTargetServer, waitFor, type TargetServer } from '@relay/test-support';
import { createOrganization, startPipeline, userCredential, type Pipeline } from './harness';

// Issue 32, item 3: an event's payload is stored in event_payloads, beside the narrow events row every outcome
// updates. Events stored before migration 20261205500000_event_payloads keep theirs in the row, and every read
// (delivery, detail, raw body, search, indexing, dry run) takes whichever holds it.
describe('event payloads, beside the row or (stored earlier) in it', () => {
  let pipeline: Pipeline;
  let target: TargetServer;
  let admin: string;
  const get = (path: string) => pipeline.http.get(path).set('authorization', admin);

  beforeAll(async () => {
    target = await startTargetServer();
    pipeline = await startPipeline({ api: { DEFAULT_TARGET_URL: `${target.url}/default` } });
    admin = (await userCredential(pipeline, 'admin')).authorization;
  });
  afterAll(async () => {
    await pipeline.close();
    await target.close();
  });

  /** An event as the previous version stored it: body and headers in the events row, none in event_payloads. */
  async function storeInRow(body: string, status: 'failed' | 'queued'): Promise<string> {
    const id = newEventId();
    await pipeline.store.pool.query(
      `INSERT INTO events (id, organization_id, source, target_url, body, headers, status, failure_reason)
       VALUES ($1, $2, 'earlier', $3, convert_to($4, 'UTF8'), $5::jsonb, $6, $7)`,
      [
        id,
        DEFAULT_ORGANIZATION_ID,
        `${target.url}/earlier`,
        body,
        '{"content-type":"application/json"}',
        status,
        status === 'failed' ? 'http_status' : null,
      ],
    );
    await pipeline.store.pool.query('INSERT INTO event_search_pending (event_id, organization_id) VALUES ($1, $2)', [
      id,
      DEFAULT_ORGANIZATION_ID,
    ]);
    return id;
  }

  const stored = async (id: string) =>
    (
      await pipeline.store.pool.query<{ row_body: Buffer | null; row_headers: unknown; body: Buffer | null }>(
        `SELECT e.body AS row_body, e.headers AS row_headers, p.body
         FROM events e LEFT JOIN event_payloads p ON p.event_id = e.id WHERE e.id = $1`,
        [id],
      )
    ).rows[0]!;

  it('stores an ingested payload in event_payloads and none in the row its outcomes update', async () => {
    const res = await pipeline.http.post('/shop').set('content-type', 'application/json').send('{"n":"beside"}');
    expect(res.status).toBe(202);
    const id = res.body.id as string;
    await pipeline.waitForStatus(id, 'delivered');
    const row = await stored(id);
    expect(row.row_body).toBeNull();
    expect(row.row_headers).toBeNull();
    expect(row.body?.toString()).toBe('{"n":"beside"}');
    expect(target.requests.find((r) => r.url === '/default')?.body.toString()).toBe('{"n":"beside"}');
  });

  it('delivers, shows and serves an earlier event from its row', async () => {
    const id = await storeInRow('{"n":"in-the-row"}', 'failed');
    expect((await stored(id)).body).toBeNull();
    await pipeline.http.post(`/events/${id}/retry`).set('authorization', admin).send({}).expect(202);
    await pipeline.waitForStatus(id, 'delivered');
    const sent = target.requests.filter((r) => r.url === '/earlier');
    expect(sent.map((r) => r.body.toString())).toEqual(['{"n":"in-the-row"}']);
    expect(sent[0]!.headers['content-type']).toBe('application/json');

    const detail = (await get(`/events/${id}`).expect(200)).body;
    expect(detail.payload).toEqual({ n: 'in-the-row' });
    expect(detail.headers).toMatchObject({ 'content-type': 'application/json' });
    const raw = await get(`/events/${id}/body`).expect(200);
    expect(raw.text).toBe('{"n":"in-the-row"}');
  });

  it("deletes an event's payload with it, alone or with its organization (no foreign key: a trigger)", async () => {
    const ingest = async (org: string) => {
      const res = await pipeline.http.post(`/${org}`).set('content-type', 'application/json').send('{"gone":1}');
      expect(res.status).toBe(202);
      return res.body.id as string;
    };
    const payloads = async (ids: string[]) =>
      (
        await pipeline.store.pool.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM event_payloads WHERE event_id = ANY($1::uuid[])',
          [ids],
        )
      ).rows[0]!.n;
    const [one, kept] = [await ingest('shop'), await ingest('shop')];
    expect(await payloads([one, kept])).toBe(2);
    await pipeline.store.pool.query('DELETE FROM events WHERE id = $1', [one]);
    expect(await payloads([one, kept])).toBe(1);

    const org = await createOrganization(pipeline, 'payloads-gone');
    const theirs = newEventId();
    await pipeline.store.pool.query(
      `WITH e AS (INSERT INTO events (id, organization_id, source) VALUES ($1, $2, 'hand') RETURNING id)
       INSERT INTO event_payloads (event_id, body, headers) SELECT id, '\\x7b7d', '{}' FROM e`,
      [theirs, org],
    );
    expect(await payloads([theirs])).toBe(1);
    await pipeline.store.pool.query('DELETE FROM organizations WHERE id = $1', [org]);
    expect(await payloads([theirs, kept])).toBe(1);
  });

  it('finds events of both kinds by their payload, before and after indexing', async () => {
    const earlier = await storeInRow('{"note":"needle-both-kinds"}', 'failed');
    const res = await pipeline.http
      .post('/shop')
      .set('content-type', 'application/json')
      .send('{"note":"needle-both-kinds"}')
      .expect(202);
    const later = res.body.id as string;
    const found = async () =>
      ((await get('/events?search=needle-both-kinds').expect(200)).body.events as { id: string }[])
        .map((e) => e.id)
        .sort();
    expect(await found()).toEqual([earlier, later].sort());
    // Indexed here or by the pipeline's own worker, whichever takes the pending rows first.
    const indexed = async () => {
      await createEventSearchRepository(pipeline.store.pool).indexPending(1_000);
      const { rows } = await pipeline.store.pool.query<{ both: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM event_search_chunks WHERE $1::uuid = ANY (event_ids))
           AND EXISTS (SELECT 1 FROM event_search_chunks WHERE $2::uuid = ANY (event_ids)) AS both`,
        [earlier, later],
      );
      return rows[0]!.both || undefined;
    };
    await waitFor(indexed, 30_000, 'both events indexed');
    expect(await found()).toEqual([earlier, later].sort());
  });
});
