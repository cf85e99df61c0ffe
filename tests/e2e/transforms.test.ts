import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_ORGANIZATION_ID } from '@relay/core';
import { apiKeyCredential, createOrganization, startPipeline, userCredential, type Pipeline } from './harness';

// Transformations and pacing through the API (issue 30, docs/transformations.md): the fields of rules and
// destinations, POST /rules/{id}/transform-test on stored webhooks (the five worked examples of the page, read from
// it), and the transformed body routes. No worker: the webhooks stay stored, and what the worker would store is
// written here directly.

const doc = readFileSync(path.resolve(__dirname, '../../docs/transformations.md'), 'utf8');
const examples = new Map(
  [...doc.matchAll(/```js\n\/\/ example: ([a-z0-9-]+)\n([\s\S]*?)```/g)].map((m) => [m[1]!, m[2]!]),
);
const push = JSON.parse(readFileSync(path.resolve(__dirname, '../../bench/github-push.json'), 'utf8')) as {
  pusher: { name: string };
  repository: { full_name: string };
};
const CHAT = "addHandler('transform', (request) => {\n  request.body = { text: 'hi' };\n  return request;\n});";

let pipeline: Pipeline;
let admin: string;
let viewer: string;
beforeAll(async () => {
  pipeline = await startPipeline({ worker: false, api: { TRANSFORM_TIMEOUT_MS: '1000' } });
  admin = (await userCredential(pipeline, 'admin')).authorization;
  viewer = (await userCredential(pipeline, 'viewer')).authorization;
});
afterAll(() => pipeline.close());

const prisma = () => pipeline.store.prisma;
const createRule = async (source: string, extra: object = {}) =>
  (
    await pipeline.http
      .post('/rules')
      .set('authorization', admin)
      .send({ source, target_url: `https://example.com/${source}`, ...extra })
      .expect(201)
  ).body as { id: string; transform: string | null };
const ingest = async (source: string, body: unknown, headers: Record<string, string> = {}, suffix = '') =>
  (
    await pipeline.http
      .post(`/${source}${suffix}`)
      .set({ 'content-type': 'application/json', ...headers })
      .send(JSON.stringify(body))
      .expect(202)
  ).body.id as string;
const tryTransform = (ruleId: string, body: object, authorization = admin) =>
  pipeline.http.post(`/rules/${ruleId}/transform-test`).set('authorization', authorization).send(body);

describe('rule and destination fields', () => {
  it('saves transform and pacing on a rule; one rule shows the code, the list only has_transform', async () => {
    const rule = await createRule('fields', {
      transform: CHAT,
      forward_path_query: true,
      rate_limit: { limit: 5, period: 'second', burst: 5 },
      max_concurrency: 2,
    });
    const one = (await pipeline.http.get(`/rules/${rule.id}`).set('authorization', admin).expect(200)).body;
    expect(one).toMatchObject({
      transform: CHAT,
      has_transform: true,
      forward_path_query: true,
      rate_limit: { limit: 5, period: 'second', burst: 5 },
      max_concurrency: 2,
    });
    const list = (await pipeline.http.get('/rules').set('authorization', admin).expect(200)).body.rules as object[];
    const listed = list.find((r) => (r as { id: string }).id === rule.id)!;
    expect(listed).toMatchObject({ has_transform: true, max_concurrency: 2 });
    expect(listed).not.toHaveProperty('transform');
    const patched = await pipeline.http
      .patch(`/rules/${rule.id}`)
      .set('authorization', admin)
      .send({ transform: null, rate_limit: null })
      .expect(200);
    expect(patched.body).toMatchObject({ transform: null, has_transform: false, rate_limit: null, max_concurrency: 2 });
  });

  it('refuses out-of-range pacing and code that does not compile, naming the path', async () => {
    const refused = async (body: object) =>
      (
        await pipeline.http
          .post('/rules')
          .set('authorization', admin)
          .send({ source: 'refused', target_url: 'https://example.com/', ...body })
          .expect(400)
      ).body as { code: string; errors: { field: string; message: string }[] };
    const fields = async (body: object) => (await refused(body)).errors.map((e) => e.field);
    expect(await fields({ rate_limit: { limit: 0, period: 'second' } })).toEqual(['rate_limit.limit']);
    expect(await fields({ rate_limit: { limit: 100_001, period: 'second' } })).toEqual(['rate_limit.limit']);
    expect(await fields({ rate_limit: { limit: 5, period: 'day' } })).toEqual(['rate_limit.period']);
    expect(await fields({ rate_limit: { limit: 5, period: 'minute', burst: 0 } })).toEqual(['rate_limit.burst']);
    expect(await fields({ max_concurrency: 0 })).toEqual(['max_concurrency']);
    expect(await fields({ max_concurrency: 1001 })).toEqual(['max_concurrency']);
    expect(await fields({ transform: `${CHAT}\n// ${'x'.repeat(256 * 1024)}` })).toEqual(['transform']);
    const unregistered = await refused({ transform: 'const shaped = 1;' });
    expect(unregistered.errors).toEqual([
      { field: 'transform', path: '/transform', message: expect.stringContaining('addHandler') },
    ]);
    const syntax = await refused({ transform: "addHandler('transform', (r) => {\n  return r.;\n});" });
    expect(syntax).toMatchObject({
      code: 'validation_failed',
      errors: [{ field: 'transform', message: expect.stringMatching(/^line 2: SyntaxError/) as unknown }],
    });
    expect(await prisma().rule.count({ where: { source: 'refused' } })).toBe(0);
  });

  it('a destination takes the same fields, compiled at save and audited by hash', async () => {
    const rule = await createRule('dest-fields');
    const base = `/rules/${rule.id}/destinations`;
    const created = await pipeline.http
      .post(base)
      .set('authorization', admin)
      .send({ target_url: 'https://example.com/d', transform: CHAT, rate_limit: { limit: 60, period: 'minute' } })
      .expect(201);
    expect(created.body).toMatchObject({
      transform: CHAT,
      has_transform: true,
      forward_path_query: false,
      rate_limit: { limit: 60, period: 'minute' },
      max_concurrency: null,
    });
    const id = created.body.id as string;
    const listed = (await pipeline.http.get(base).set('authorization', admin).expect(200)).body.destinations;
    expect(listed[0]).toMatchObject({ has_transform: true });
    expect(listed[0]).not.toHaveProperty('transform');
    const bad = await pipeline.http
      .patch(`${base}/${id}`)
      .set('authorization', admin)
      .send({ transform: 'addHandler(' })
      .expect(400);
    expect(bad.body.errors).toEqual([expect.objectContaining({ field: 'transform' })]);
    await pipeline.http
      .patch(`${base}/${id}`)
      .set('authorization', admin)
      .send({ max_concurrency: 3, forward_path_query: true })
      .expect(200);
    const one = (await pipeline.http.get(`${base}/${id}`).set('authorization', admin).expect(200)).body;
    expect(one).toMatchObject({ transform: CHAT, max_concurrency: 3, forward_path_query: true });
    const entries = await prisma().auditEntry.findMany({ where: { resourceId: id }, orderBy: { createdAt: 'asc' } });
    expect(entries.map((e) => e.action)).toEqual(['destination.created', 'destination.updated']);
    expect(entries[0]!.metadata).toMatchObject({ transform_sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(JSON.stringify(entries.map((e) => e.metadata))).not.toContain('addHandler');
  });
});

describe('POST /rules/{id}/transform-test', () => {
  it('runs each worked example of docs/transformations.md on a stored webhook', async () => {
    expect(examples.size).toBe(5);
    const run = async (name: string, source: string, body: unknown, headers: Record<string, string> = {}) => {
      const rule = await createRule(source);
      const eventId = await ingest(source, body, headers, '/hooks?a=1');
      const res = await tryTransform(rule.id, { transform: examples.get(name), event_id: eventId }).expect(200);
      expect(res.body).toMatchObject({ ok: true, logs: '' });
      return { ...(res.body.request as { body: unknown; headers: Record<string, string> }), eventId };
    };

    const chat = await run('github-push-to-chat', 'github', push, { 'x-github-event': 'push' });
    expect(chat.body).toMatchObject({ text: expect.stringContaining(push.pusher.name) as unknown });
    expect(chat.body).toMatchObject({ text: expect.stringContaining(push.repository.full_name) as unknown });
    expect(chat.headers).toMatchObject({ 'x-kind': 'chat', 'x-github-event': 'push' });

    const invoice = {
      type: 'invoice.paid',
      data: {
        object: {
          id: 'in_1',
          customer: 'cus_9',
          customer_email: 'ann@example.com',
          amount_paid: 12345,
          currency: 'eur',
          created: 1_764_000_000,
          lines: { data: [{ description: 'Pro plan', quantity: 1, amount: 12345 }] },
        },
      },
    };
    const billing = await run('stripe-invoice-to-billing', 'stripe', invoice);
    expect(billing.body).toEqual({
      external_id: 'in_1',
      customer: { id: 'cus_9', email: 'ann@example.com' },
      status: 'paid',
      total: { amount: 123.45, currency: 'EUR' },
      lines: [{ description: 'Pro plan', quantity: 1, amount: 123.45 }],
      issued_at: new Date(1_764_000_000_000).toISOString(),
      source_event: billing.eventId,
    });

    const order = await run('header-from-payload', 'orders', { id: 42, total_price: 1500 });
    expect(order.headers).toMatchObject({ 'x-order-priority': 'high', 'x-idempotency-key': 'orders:42' });

    const scrubbed = await run(
      'drop-secret-fields',
      'signup',
      { user: { name: 'ann', password: 'p', cards: [{ last4: '4242', cvc: '1' }] }, token: 't' },
      { authorization: 'Bearer abc' },
    );
    expect(scrubbed.body).toEqual({ user: { name: 'ann', cards: [{ last4: '4242' }] } });
    expect(scrubbed.headers).not.toHaveProperty('authorization');

    const lines = await run('flatten-shopify-line-items', 'shopify', {
      id: 7,
      name: '#7',
      line_items: [{ sku: 'A', title: 'A', quantity: 2, price: '1.50' }],
    });
    expect(lines.body).toEqual([
      { order_id: 7, order_name: '#7', sku: 'A', title: 'A', quantity: 2, unit_price: 1.5, line_total: 3 },
    ]);
  });

  it('gives the webhook as the events API shows it: masked headers stay masked in input, output and logs', async () => {
    const rule = await createRule('masked');
    const eventId = await ingest('masked', { a: 1 }, { authorization: 'Bearer very-secret-token' }, '/p/q?x=1&x=2');
    const code = `addHandler('transform', (request, context) => {
      console.log('auth', request.headers.authorization);
      request.body = { seen: request.headers.authorization, path: request.path, query: request.query, context };
      return request;
    });`;
    const res = await tryTransform(rule.id, { transform: code, event_id: eventId }).expect(200);
    expect(JSON.stringify(res.body)).not.toContain('very-secret-token');
    expect(res.body).toMatchObject({
      ok: true,
      request: {
        body: {
          seen: 'Bearer [masked]',
          path: '/p/q',
          query: { x: ['1', '2'] },
          context: { event_id: eventId, source: 'masked', rule_id: rule.id },
        },
        headers: { authorization: 'Bearer [masked]' },
      },
      logs: 'auth Bearer [masked]\n',
    });
  });

  it('answers a failure with 200, its line and logs; sends and stores nothing', async () => {
    const rule = await createRule('failing');
    const eventId = await ingest('failing', { a: 1 });
    const code = "addHandler('transform', (request) => {\n  console.log('x');\n  return request.body.b.c;\n});";
    const res = await tryTransform(rule.id, { transform: code, event_id: eventId }).expect(200);
    expect(res.body).toEqual({
      ok: false,
      error: { message: expect.stringContaining('TypeError') as unknown, line: 3, cause: 'error' },
      logs: 'x\n',
    });
    const event = await pipeline.eventById(eventId);
    expect(event).toMatchObject({ transformedBody: null, transformLogs: null, attemptCount: 0 });
    expect(await prisma().rule.findUnique({ where: { id: rule.id } })).toMatchObject({ transform: null });
  });

  it('ends a runaway with its time limit while the API keeps serving', async () => {
    const rule = await createRule('runaway');
    const eventId = await ingest('runaway', { a: 1 });
    const order: string[] = [];
    const runaway = tryTransform(rule.id, {
      transform: "addHandler('transform', () => { while (true) {} });",
      event_id: eventId,
    })
      .expect(200)
      .then((res) => {
        order.push('runaway');
        return res;
      });
    // The sandbox is a thread of its own: requests started while it spins are answered before it ends.
    await new Promise((resolve) => setTimeout(resolve, 100));
    await pipeline.http.get('/rules').set('authorization', admin).expect(200);
    order.push('served');
    const res = await runaway;
    expect(order).toEqual(['served', 'runaway']);
    expect(res.body).toMatchObject({ ok: false, error: { cause: 'timeout' } });
    const after = await tryTransform(rule.id, { transform: CHAT, event_id: eventId }).expect(200);
    expect(after.body).toMatchObject({ ok: true, request: { body: { text: 'hi' } } });
  });

  it("runs a destination's saved transform with its id in the context", async () => {
    const rule = await createRule('dest-try');
    const code = `addHandler('transform', (request, context) => {
      request.body = { to: context.destination_id };
      return request;
    });`;
    const destination = (
      await pipeline.http
        .post(`/rules/${rule.id}/destinations`)
        .set('authorization', admin)
        .send({ target_url: 'https://example.com/d', transform: code })
        .expect(201)
    ).body as { id: string };
    const eventId = await ingest('dest-try', { a: 1 });
    const res = await tryTransform(rule.id, { event_id: eventId, destination_id: destination.id }).expect(200);
    expect(res.body).toMatchObject({ ok: true, request: { body: { to: destination.id } } });
  });

  it('is for admins, and for keys with events:read; another rule, organization or unknown ids are 404', async () => {
    const rule = await createRule('access');
    const other = await createRule('access-other');
    const eventId = await ingest('access', { a: 1 });
    const otherEvent = await ingest('access-other', { a: 1 });
    const body = { transform: CHAT, event_id: eventId };
    await tryTransform(rule.id, body, viewer).expect(403);
    await tryTransform(rule.id, body, await apiKeyCredential(pipeline, ['rules:write'])).expect(403);
    await tryTransform(rule.id, body, await apiKeyCredential(pipeline, ['events:read'])).expect(200);
    await tryTransform(rule.id, { ...body, event_id: otherEvent }).expect(404);
    await tryTransform(other.id, body).expect(404);
    const orgId = await createOrganization(pipeline, 'transform-outsider');
    const outsider = (await userCredential(pipeline, 'admin', orgId)).authorization;
    await tryTransform(rule.id, body, outsider).expect(404);
    const bad = await tryTransform(rule.id, { transform: CHAT, event_id: 'nope' }).expect(400);
    expect(bad.body.errors).toEqual([expect.objectContaining({ field: 'event_id' })]);
  });
});

describe('transformed bodies', () => {
  it("GET /events/{id}/body?transformed=true: the primary's stored transformed body, else 404", async () => {
    await createRule('bodies');
    const eventId = await ingest('bodies', { received: true });
    const body = (query = '') =>
      pipeline.http.get(`/events/${eventId}/body${query}`).set('authorization', viewer).buffer(true);
    const missing = await body('?transformed=true').expect(404);
    expect(missing.body.code).toBe('transformed_body_not_found');
    await prisma().event.update({ where: { id: eventId }, data: { transformedBody: Buffer.from('{"sent":1}') } });
    const sent = await body('?transformed=true').expect(200);
    expect(sent.headers).toMatchObject({ 'content-type': 'application/json', 'x-relay-body': 'transformed' });
    expect(sent.body).toEqual({ sent: 1 });
    const received = await body('?transformed=false').expect(200);
    expect(received.headers['x-relay-body']).toBe('received');
    expect(received.body).toEqual({ received: true });
  });

  it('GET /events/{id}/deliveries/{deliveryId}/body: what the delivery sends', async () => {
    const rule = await createRule('delivery-bodies');
    const add = async (extra: object) =>
      (
        await pipeline.http
          .post(`/rules/${rule.id}/destinations`)
          .set('authorization', admin)
          .send({ target_url: 'https://example.com/d', ...extra })
          .expect(201)
      ).body.id as string;
    const plain = await add({ name: 'plain' });
    const shaped = await add({ name: 'shaped', transform: CHAT });
    const eventId = await ingest('delivery-bodies', { received: true });
    // What the worker's fan-out would create.
    const deliveryTo = (destinationId: string) =>
      prisma().delivery.create({ data: { organizationId: DEFAULT_ORGANIZATION_ID, eventId, destinationId } });
    const toPlain = await deliveryTo(plain);
    const toShaped = await deliveryTo(shaped);
    const get = (deliveryId: string, authorization = viewer) =>
      pipeline.http.get(`/events/${eventId}/deliveries/${deliveryId}/body`).set('authorization', authorization);

    const asReceived = await get(toPlain.id).expect(200);
    expect(asReceived.headers['x-relay-body']).toBe('received');
    expect(asReceived.body).toEqual({ received: true });
    expect((await get(toShaped.id).expect(404)).body.code).toBe('transformed_body_not_found');
    await prisma().delivery.updateMany({
      where: { id: toShaped.id },
      data: { transformedBody: Buffer.from('{"t":1}') },
    });
    const transformed = await get(toShaped.id).expect(200);
    expect(transformed.headers['x-relay-body']).toBe('transformed');
    expect(transformed.body).toEqual({ t: 1 });

    expect((await get('00000000-0000-7000-8000-0000000000aa').expect(404)).body.code).toBe('delivery_not_found');
    const orgId = await createOrganization(pipeline, 'bodies-outsider');
    const outsider = (await userCredential(pipeline, 'viewer', orgId)).authorization;
    expect((await get(toShaped.id, outsider).expect(404)).body.code).toBe('not_found');
  });
});
