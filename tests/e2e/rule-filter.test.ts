import { startTargetServer, waitFor, type TargetServer } from '@relay/test-support';
import { startPipeline, userCredential, type Pipeline } from './harness';

// A rule's routing filter (docs/routing.md) end to end: ingest, the worker's prepare stage, the event views.
let pipeline: Pipeline;
let main: TargetServer;
let fallback: TargetServer;
let hooks: TargetServer;
let admin: string;

beforeAll(async () => {
  main = await startTargetServer();
  fallback = await startTargetServer();
  hooks = await startTargetServer();
  pipeline = await startPipeline({ api: { DEFAULT_TARGET_URL: fallback.url }, worker: {} });
  admin = (await userCredential(pipeline, 'admin')).authorization;
});
afterAll(async () => {
  await pipeline.close();
  await main.close();
  await fallback.close();
  await hooks.close();
});

async function ruleWithFilter(source: string, filter: unknown) {
  const rule = (
    await pipeline.http
      .post('/rules')
      .set('authorization', admin)
      .send({ source, target_url: `${main.url}/${source}`, filter })
      .expect(201)
  ).body;
  for (const trigger of ['provider_succeeded', 'provider_failed']) {
    await pipeline.http
      .post(`/rules/${rule.id}/hooks`)
      .set('authorization', admin)
      .send({ target_url: `${hooks.url}/${source}/${trigger}`, trigger })
      .expect(201);
  }
  return rule as { id: string; filter: unknown };
}
const ingest = async (path: string, body: unknown) =>
  (await pipeline.http.post(path).set('content-type', 'application/json').send(JSON.stringify(body)).expect(202)).body
    .id as string;

describe('rule filters', () => {
  it('ignores a webhook the filter does not match (no attempt, no hook, no default target) and delivers one it does', async () => {
    const filter = { body: { amount: { $gte: 100 } }, path: { $startsWith: '/orders' }, query: { shop: 'acme' } };
    const rule = await ruleWithFilter('shopf', filter);
    expect(rule.filter).toEqual(filter);
    const small = await ingest('/shopf/orders/create?shop=acme', { amount: 5 });
    const big = await ingest('/shopf/orders/create?shop=acme', { amount: 500 });
    await pipeline.waitForStatus(big, 'delivered');
    const ignored = await pipeline.waitForStatus(small, 'ignored');
    expect(ignored).toMatchObject({ failureReason: null, attemptCount: 0 });
    expect(await pipeline.attemptsOf(small)).toEqual([]);
    expect(main.requests.map((r) => JSON.parse(r.body.toString()))).toEqual([{ amount: 500 }]);
    expect(fallback.requests).toEqual([]);
    // The delivered event's success hook runs; the ignored one has none.
    await waitFor(() => (hooks.requests.length >= 1 ? true : undefined));
    expect(hooks.requests.map((r) => r.url)).toEqual(['/shopf/provider_succeeded']);

    const detail = await pipeline.http.get(`/events/${small}`).set('authorization', admin).expect(200);
    expect(detail.body).toMatchObject({ status: 'ignored', ignored_reason: 'filtered', failure_reason: null });
    const delivered = await pipeline.http.get(`/events/${big}`).set('authorization', admin).expect(200);
    expect(delivered.body.ignored_reason).toBeNull();

    const list = await pipeline.http.get('/events?status=ignored').set('authorization', admin).expect(200);
    expect(list.body.events.map((e: { id: string }) => e.id)).toEqual([small]);
    const stats = await pipeline.http.get('/stats').set('authorization', admin).expect(200);
    expect(stats.body.by_status.ignored).toBe(1);
  });

  it('filters POST /api/send in rule mode the same way', async () => {
    const rule = await ruleWithFilter('sendf', { cel: 'body.kind == "keep"' });
    const send = (kind: string) =>
      pipeline.http
        .post('/api/send')
        .set('authorization', admin)
        .send({ provider_id: rule.id, body: { kind } })
        .expect(202);
    const dropped = (await send('drop')).body.id as string;
    const kept = (await send('keep')).body.id as string;
    await pipeline.waitForStatus(kept, 'delivered');
    await pipeline.waitForStatus(dropped, 'ignored');
    expect(await pipeline.attemptsOf(dropped)).toEqual([]);
  });

  it('refuses an invalid filter with 400 validation_failed naming the bad part; PATCH sets and clears it', async () => {
    const bad = await pipeline.http
      .post('/rules')
      .set('authorization', admin)
      .send({ source: 'badf', target_url: `${main.url}/x`, filter: { body: { amount: { $gtt: 5 } } } })
      .expect(400);
    expect(bad.body).toMatchObject({
      code: 'validation_failed',
      errors: [{ field: 'filter.body.amount.$gtt', message: expect.stringContaining('unknown operator') }],
    });
    const cel = await pipeline.http
      .post('/rules')
      .set('authorization', admin)
      .send({ source: 'badf', target_url: `${main.url}/x`, filter: { cel: 'body.a.matches("x+")' } })
      .expect(400);
    expect(cel.body.errors).toMatchObject([{ field: 'filter.cel' }]);

    const rule = await ruleWithFilter('patchf', null);
    expect(rule.filter).toBeNull();
    const set = await pipeline.http
      .patch(`/rules/${rule.id}`)
      .set('authorization', admin)
      .send({ filter: { headers: { 'X-Kind': 'a' } } })
      .expect(200);
    expect(set.body.filter).toEqual({ headers: { 'X-Kind': 'a' } });
    const cleared = await pipeline.http
      .patch(`/rules/${rule.id}`)
      .set('authorization', admin)
      .send({ filter: null })
      .expect(200);
    expect(cleared.body.filter).toBeNull();
  });
});
