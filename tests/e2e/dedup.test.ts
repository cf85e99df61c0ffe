import { randomUUID } from 'node:crypto';
import { DEFAULT_ORGANIZATION_ID } from '@relay/core';
import { startTargetServer, type TargetServer } from '@relay/test-support';
import { pino } from 'pino';
import supertest from 'supertest';
import { parseApiConfig } from '../../apps/api/src/config';
import { createApiRuntime } from '../../apps/api/src/runtime';
import { FAST_HASH_ENV, startPipeline, userCredential, type Pipeline } from './harness';
import { CANONICAL, HOSTED_ENV, operatorSession } from './limits-fixture';
import { parseExposition, valueOf } from './metrics-text';

type Http = ReturnType<typeof supertest>;

// Idempotent ingest (rule option `dedup`): a webhook whose key was seen within the window is answered
// with the original event and stored no more.
describe('deduplication at ingest', () => {
  let pipeline: Pipeline;
  let target: TargetServer;
  let admin: string;
  beforeAll(async () => {
    target = await startTargetServer();
    pipeline = await startPipeline();
    admin = (await userCredential(pipeline, 'admin')).authorization;
  });
  afterAll(async () => {
    await pipeline.close();
    await target.close();
  });

  async function ruleWith(source: string, dedup: Record<string, unknown>): Promise<string> {
    const res = await pipeline.http
      .post('/rules')
      .set('authorization', admin)
      .send({ source, target_url: `${target.url}/${source}`, dedup })
      .expect(201);
    return res.body.id as string;
  }
  const post = (source: string, body: unknown, headers: Record<string, string> = {}, http: Http = pipeline.http) =>
    http
      .post(`/${source}`)
      .set({ 'content-type': 'application/json', ...headers })
      .send(JSON.stringify(body));
  const storedOf = async (source: string) =>
    (
      await pipeline.store.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE source = $1', [
        source,
      ])
    ).rows[0]!.n;
  const ruleView = async (id: string) =>
    (await pipeline.http.get(`/rules/${id}`).set('authorization', admin).expect(200)).body;
  const duplicatesCounted = async () =>
    valueOf(parseExposition((await pipeline.http.get('/metrics').expect(200)).text), 'relay_ingest_requests_total', {
      outcome: 'duplicate',
    }) ?? 0;

  it('stores 20 concurrent identical webhooks once; every answer names the same event', async () => {
    const id = await ruleWith('gh-burst', { preset: 'github' });
    const countedBefore = await duplicatesCounted();
    const delivery = randomUUID();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => post('gh-burst', { zen: 'same' }, { 'x-github-delivery': delivery })),
    );
    const statuses = answers.map((res) => res.status).sort();
    expect(statuses).toEqual([...Array(19).fill(200), 202]);
    const eventId = answers.find((res) => res.status === 202)!.body.id as string;
    for (const res of answers) {
      if (res.status === 202) expect(res.body).toEqual({ id: eventId, status: 'queued' });
      else expect(res.body).toEqual({ id: eventId, status: expect.any(String), duplicate: true });
    }
    expect(await storedOf('gh-burst')).toBe(1);
    expect((await ruleView(id)).duplicate_count).toBe(19);
    expect((await duplicatesCounted()) - countedBefore).toBe(19);
    await pipeline.waitForStatus(eventId, 'delivered');
    expect(target.requests.filter((r) => r.url === '/gh-burst')).toHaveLength(1);
  });

  it.each([
    ['github', (key: string) => ({ headers: { 'x-github-delivery': key }, body: { action: 'opened' } })],
    ['stripe', (key: string) => ({ headers: {}, body: { id: key, object: 'event', type: 'charge.succeeded' } })],
    ['shopify', (key: string) => ({ headers: { 'x-shopify-webhook-id': key }, body: { id: 1 } })],
    [
      'standard_webhooks',
      (key: string) => ({ headers: { 'webhook-id': key }, body: { type: 'invoice.paid', data: {} } }),
    ],
  ] as const)('takes the %s preset key from where the sender puts it', async (preset, send) => {
    const source = `preset-${preset.replace('_', '-')}`;
    const id = await ruleWith(source, { preset });
    const first = send(`${preset}-delivery-1`);
    const stored = await post(source, first.body, first.headers).expect(202);
    // A retry by the sender: same delivery id (a preset ignores everything else, even the payload).
    const again = await post(source, { ...first.body, retried: true }, first.headers).expect(200);
    expect(again.body).toMatchObject({ id: stored.body.id, duplicate: true });
    const other = send(`${preset}-delivery-2`);
    const next = await post(source, other.body, other.headers).expect(202);
    expect(next.body.id).not.toBe(stored.body.id);
    expect(await storedOf(source)).toBe(2);
    expect((await ruleView(id)).duplicate_count).toBe(1);
  });

  it('takes a custom header (any case) or a JSON pointer (with ~1 and ~0 escapes) as the key', async () => {
    await ruleWith('custom-header', { header: 'X-Idempotency-Key' });
    const a = await post('custom-header', { n: 1 }, { 'x-idempotency-key': 'k-1' }).expect(202);
    const b = await post('custom-header', { n: 2 }, { 'X-IDEMPOTENCY-KEY': 'k-1' }).expect(200);
    expect(b.body.id).toBe(a.body.id);
    await post('custom-header', { n: 3 }, { 'x-idempotency-key': 'k-2' }).expect(202);

    await ruleWith('custom-pointer', { json_pointer: '/data/a~1b/c~0d' });
    const c = await post('custom-pointer', { data: { 'a/b': { 'c~d': 7 } }, n: 1 }).expect(202);
    // A number is its JSON text: 7 here is the same key as above.
    const d = await post('custom-pointer', { data: { 'a/b': { 'c~d': 7 } }, n: 2 }).expect(200);
    expect(d.body.id).toBe(c.body.id);
    await post('custom-pointer', { data: { 'a/b': { 'c~d': '7x' } } }).expect(202);
    expect(await storedOf('custom-pointer')).toBe(2);
  });

  it('stores a webhook without a key like any other, every time', async () => {
    const id = await ruleWith('keyless', { preset: 'stripe' });
    // No id, a null id and an object id: no key, so no deduplication.
    for (const body of [{ type: 'x' }, { type: 'x' }, { id: null }, { id: null }, { id: { nested: 1 } }]) {
      await post('keyless', body).expect(202);
    }
    // An empty header is no key either.
    await ruleWith('keyless-header', { preset: 'github' });
    await post('keyless-header', {}, { 'x-github-delivery': '' }).expect(202);
    await post('keyless-header', {}, { 'x-github-delivery': '' }).expect(202);
    expect(await storedOf('keyless')).toBe(5);
    expect(await storedOf('keyless-header')).toBe(2);
    expect((await ruleView(id)).duplicate_count).toBe(0);
  });

  it("answers a duplicate with the original event's status now", async () => {
    await ruleWith('follows', { preset: 'stripe' });
    const stored = await post('follows', { id: 'evt_follows' }).expect(202);
    await pipeline.waitForStatus(stored.body.id, 'delivered');
    const again = await post('follows', { id: 'evt_follows' }).expect(200);
    expect(again.body).toEqual({ id: stored.body.id, status: 'delivered', duplicate: true });
  });

  it('stores the webhook anew when the original event was deleted', async () => {
    await ruleWith('deleted-original', { preset: 'stripe' });
    const stored = await post('deleted-original', { id: 'evt_gone' }).expect(202);
    await pipeline.waitForStatus(stored.body.id, 'delivered');
    await pipeline.http.delete(`/events/${stored.body.id}`).set('authorization', admin).expect(204);
    const anew = await post('deleted-original', { id: 'evt_gone' }).expect(202);
    expect(anew.body.id).not.toBe(stored.body.id);
    const again = await post('deleted-original', { id: 'evt_gone' }).expect(200);
    expect(again.body.id).toBe(anew.body.id);
  });

  it('stores the webhook without a key when its rule was deleted while ingest still remembered it', async () => {
    const id = await ruleWith('deleted-rule', { preset: 'stripe' });
    await post('deleted-rule', { id: 'evt_rule_gone' }).expect(202);
    await pipeline.http.delete(`/rules/${id}`).set('authorization', admin).expect(204);
    // Within INGEST_HOST_CACHE_MS ingest still sees the rule; its key can no longer be stored.
    await post('deleted-rule', { id: 'evt_rule_gone' }).expect(202);
    expect(await storedOf('deleted-rule')).toBe(2);
  });

  it('leaves webhooks with an X-Target-Url override alone (no rule applies to them)', async () => {
    const api = createApiRuntime(
      parseApiConfig({ ...pipeline.baseEnv, INGEST_BATCH_WAIT_MS: '1', ALLOW_PUBLIC_TARGET_OVERRIDE: 'true' }),
      pino({ level: 'silent' }),
    );
    try {
      const http = supertest(api.app);
      await ruleWith('overridden', { preset: 'stripe' });
      const headers = { 'x-target-url': `${target.url}/elsewhere` };
      await post('overridden', { id: 'evt_o' }, headers, http).expect(202);
      await post('overridden', { id: 'evt_o' }, headers, http).expect(202);
      expect(await storedOf('overridden')).toBe(2);
    } finally {
      await api.close();
    }
  });

  it('remembers a key for the window only (injected clock), then stores the webhook again', async () => {
    let clock = new Date();
    const api = createApiRuntime(
      parseApiConfig({ ...pipeline.baseEnv, INGEST_BATCH_WAIT_MS: '1' }),
      pino({ level: 'silent' }),
      { now: () => clock },
    );
    try {
      const http = supertest(api.app);
      await ruleWith('windowed', { preset: 'shopify', window_seconds: 60 });
      const headers = { 'x-shopify-webhook-id': 'shop-window' };
      const first = await post('windowed', {}, headers, http).expect(202);
      clock = new Date(clock.getTime() + 59_000);
      expect((await post('windowed', {}, headers, http).expect(200)).body.id).toBe(first.body.id);
      // The window is measured from the first webhook, not extended by duplicates.
      clock = new Date(clock.getTime() + 1_000);
      const second = await post('windowed', {}, headers, http).expect(202);
      expect(second.body.id).not.toBe(first.body.id);
      clock = new Date(clock.getTime() + 30_000);
      expect((await post('windowed', {}, headers, http).expect(200)).body.id).toBe(second.body.id);
      expect(await storedOf('windowed')).toBe(2);
    } finally {
      await api.close();
    }
  });
});

describe('deduplication and the monthly quota', () => {
  let pipeline: Pipeline;
  let target: TargetServer;
  beforeAll(async () => {
    target = await startTargetServer();
    pipeline = await startPipeline({
      api: { ...FAST_HASH_ENV, ...HOSTED_ENV, INGEST_HOST_CACHE_MS: '0' },
      worker: false,
    });
  });
  afterAll(async () => {
    await pipeline.close();
    await target.close();
  });

  it('gives a duplicate its quota count back: it stores nothing', async () => {
    const admin = (await userCredential(pipeline, 'admin')).authorization;
    await pipeline.http
      .post('/rules')
      .set('authorization', admin)
      .send({ source: 'orders', target_url: `${target.url}/orders`, dedup: { preset: 'stripe' } })
      .expect(201);
    const asOperator = await operatorSession(pipeline);
    await asOperator(pipeline.http.patch(`/api/platform/organizations/${DEFAULT_ORGANIZATION_ID}/subscription`))
      .send({ monthly_event_limit: 2 })
      .expect(200);
    const webhook = (id: string) =>
      pipeline.http.post('/orders').set({ host: CANONICAL, 'content-type': 'application/json' }).send({ id });
    await webhook('evt_1').expect(202);
    for (let i = 0; i < 5; i++) await webhook('evt_1').expect(200);
    await webhook('evt_2').expect(202);
    expect((await webhook('evt_3').expect(429)).body.code).toBe('quota_exceeded');
    expect(await pipeline.store.prisma.event.count()).toBe(2);
  });
});
