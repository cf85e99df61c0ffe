import { addSearchKeys, DEFAULT_SENSITIVE_HEADERS, termSearchKeys } from '@relay/core';
import { startTargetServer, type TargetServer } from '@relay/test-support';
import { startPipeline, userCredential, type Pipeline } from './harness';

// Credential headers (the built-in SENSITIVE_HEADERS list plus the names an operator adds) are stored and
// forwarded as before, but every reader sees them masked, whatever their role, and no search finds an
// event by them: neither while it waits for the indexer nor once it is indexed.
describe('sensitive headers', () => {
  let pipeline: Pipeline;
  let target: TargetServer;
  let admin: string;
  let viewer: string;
  const sent = {
    'content-type': 'application/json',
    'x-api-key': 'secret123',
    authorization: 'Bearer abc-token-789',
    'x-partner-key': 'partner456',
    'x-kept': 'kept-value-1',
  };
  const secrets = ['secret123', 'abc-token-789', 'partner456'];
  const settings = { SENSITIVE_HEADERS: 'X-Partner-Key', SEARCH_INDEX_INTERVAL_MS: '3600000' };

  beforeAll(async () => {
    target = await startTargetServer();
    // The worker indexes only when a test asks (indexSearchNow), so both search paths are seen.
    pipeline = await startPipeline({ api: settings, worker: settings });
    admin = (await userCredential(pipeline, 'admin')).authorization;
    viewer = (await userCredential(pipeline, 'viewer')).authorization;
    await pipeline.http
      .post('/rules')
      .set('authorization', admin)
      .send({ source: 'partner', target_url: `${target.url}/in`, outbound_headers: { forward: ['authorization'] } })
      .expect(201);
  });
  afterAll(async () => {
    await pipeline.close();
    await target.close();
  });

  const ingest = async () => {
    const res = await pipeline.http.post('/partner').set(sent).send('{"order":"sensitive-order-1"}').expect(202);
    await pipeline.waitForStatus(res.body.id as string, 'delivered');
    return res.body.id as string;
  };
  const found = async (term: string, auth = admin) =>
    (await pipeline.http.get('/events').query({ search: term }).set('authorization', auth).expect(200)).body.events as {
      id: string;
    }[];
  // Whether the index holds every key of `term` for the event: its chunk's, and its own in its own set or its
  // chunk's (undefined: not indexed).
  const indexHolds = async (id: string, term: string) =>
    (
      await pipeline.store.pool.query<{ holds: boolean }>(
        `SELECT c.keys @> $2::int[] AND (coalesce(k.keys, '{}') || c.keys) @> $3::int[] AS holds
         FROM event_search_chunks c LEFT JOIN event_search_keys k ON k.event_id = $1 WHERE $1 = ANY (c.event_ids)`,
        [id, termSearchKeys(term).chunk, termSearchKeys(term).event],
      )
    ).rows[0]?.holds;

  it('forwards the headers unchanged and stores them as received', async () => {
    target.requests.length = 0;
    const id = await ingest();
    const [request] = await target.waitForRequests(1);
    expect(request!.headers).toMatchObject({
      'x-api-key': 'secret123',
      authorization: 'Bearer abc-token-789',
      'x-partner-key': 'partner456',
      'x-kept': 'kept-value-1',
    });
    expect((await pipeline.eventById(id))?.headers).toMatchObject({ 'x-api-key': 'secret123' });
  });

  it('shows them masked to viewers and admins alike, in the event and the list', async () => {
    const id = await ingest();
    for (const auth of [viewer, admin]) {
      const detail = await pipeline.http.get(`/events/${id}`).set('authorization', auth).expect(200);
      expect(detail.body.headers).toMatchObject({
        'x-api-key': '[masked]',
        authorization: 'Bearer [masked]',
        // Added by SENSITIVE_HEADERS, whatever the case it was written in.
        'x-partner-key': '[masked]',
        'x-kept': 'kept-value-1',
      });
      const list = await pipeline.http.get('/events').set('authorization', auth).expect(200);
      for (const body of [detail.body, list.body, await found('sensitive-order-1', auth)])
        for (const secret of secrets) expect(JSON.stringify(body)).not.toContain(secret);
    }
  });

  it('finds no event by a sensitive value, pending or indexed, while other headers stay searchable', async () => {
    const id = await ingest();
    for (const stage of ['pending', 'indexed']) {
      if (stage === 'indexed') {
        await pipeline.worker!.indexSearchNow();
        expect(await indexHolds(id, 'kept-value-1')).toBe(true);
      }
      for (const secret of secrets) expect(await found(secret)).toEqual([]);
      expect((await found('kept-value-1')).map((e) => e.id)).toContain(id);
    }
    // The event's own keys are those of its text without the sensitive headers (in its own set or its chunk's), and
    // none that only the sensitive values give.
    const ownKeys = async (leftOut: string[]) => {
      const { rows } = await pipeline.store.pool.query<{ text: string }>(
        `SELECT source || ' ' || convert_from(p.body, 'UTF8') || ' ' || (p.headers - $2::text[])::text AS text
         FROM events e JOIN event_payloads p ON p.event_id = e.id WHERE e.id = $1`,
        [id, leftOut],
      );
      const keys = new Set<number>();
      addSearchKeys(rows[0]!.text, new Set(), keys);
      return keys;
    };
    const { rows } = await pipeline.store.pool.query<{ own: number[] | null; chunk: number[] }>(
      `SELECT k.keys AS own, c.keys AS chunk FROM event_search_chunks c
       LEFT JOIN event_search_keys k ON k.event_id = $1 WHERE $1 = ANY (c.event_ids)`,
      [id],
    );
    const own = new Set(rows[0]!.own ?? []);
    const stored = new Set([...own, ...rows[0]!.chunk]);
    const withoutSecrets = await ownKeys([...DEFAULT_SENSITIVE_HEADERS, 'x-partner-key']);
    const secretOnly = [...(await ownKeys([]))].filter((key) => !withoutSecrets.has(key));
    expect(secretOnly.length).toBeGreaterThan(0);
    expect([...withoutSecrets].filter((key) => !stored.has(key))).toEqual([]);
    expect([...own].filter((key) => !withoutSecrets.has(key))).toEqual([]);
    expect(secretOnly.filter((key) => stored.has(key))).toEqual([]);
  });

  it('selects no event by a sensitive value for a bulk action', async () => {
    await ingest();
    for (const secret of secrets) {
      const res = await pipeline.http
        .post('/events/bulk/delete')
        .set('authorization', admin)
        .send({ filter: { search: secret } })
        .expect(200);
      expect(res.body.affected).toBe(0);
    }
  });
});
