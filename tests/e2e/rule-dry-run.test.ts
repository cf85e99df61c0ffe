import { randomUUID } from 'node:crypto';
import { apiKeyCredential, createOrganization, startPipeline, userCredential, type Pipeline } from './harness';

// POST /rules/{id}/dry-run (docs/routing.md, "Dry run"): a filter tried on the rule's stored webhooks, read only.
let pipeline: Pipeline;
let admin: string;
let ruleId: string;
/** The rule's webhooks, oldest first: amount i * 10 for i = 0..11, a text body for i = 2, 5, 8, 11. */
const stored: string[] = [];

const dryRun = (body: unknown, id = ruleId, credential = admin) =>
  pipeline.http
    .post(`/rules/${id}/dry-run`)
    .set('authorization', credential)
    .send(body as object);

beforeAll(async () => {
  // No worker: the events stay as ingest stored them (a dry run reads them in any status).
  pipeline = await startPipeline({ worker: false });
  admin = (await userCredential(pipeline, 'admin')).authorization;
  const rule = await pipeline.http
    .post('/rules')
    .set('authorization', admin)
    .send({ source: 'dry', target_url: 'https://example.com/dry' })
    .expect(201);
  ruleId = rule.body.id;
  for (let i = 0; i < 12; i++) {
    const text = i % 3 === 2;
    const answer = await pipeline.http
      .post(`/dry/orders?n=${i}`)
      .set('content-type', 'application/json')
      .set('x-api-key', 'the-secret-key')
      .set('x-env', i < 6 ? 'staging' : 'prod')
      .send(JSON.stringify(text ? {} : { amount: i * 10 }))
      .expect(202);
    stored.push(answer.body.id as string);
    // Distinct creation times, so "newest" is well defined; ingest takes JSON only, so a text body (stored by an
    // earlier version, or a body that is not JSON) is written here.
    await pipeline.store.prisma.event.update({
      where: { id: answer.body.id as string },
      data: { createdAt: new Date(Date.UTC(2026, 0, 1, 0, i)) },
    });
    if (text)
      await pipeline.store.prisma.eventPayload.update({
        where: { eventId: answer.body.id as string },
        data: { body: Buffer.from(`plain ${i}`) },
      });
  }
  // Another source's webhook: not the rule's.
  await pipeline.http.post('/other').send({ amount: 1_000 }).expect(202);
});
afterAll(() => pipeline.close());

describe('rule dry run', () => {
  it("counts the rule's newest webhooks the filter matches (default 50), newest first, changing nothing", async () => {
    const before = await pipeline.store.prisma.event.findMany({ orderBy: { id: 'asc' } });
    const res = await dryRun({ filter: { body: { amount: { $gte: 50 } } } }).expect(200);
    // Amounts 60, 70, 90 and 100 (50, 80 and 110 are text bodies: i = 5, 8, 11).
    expect(res.body).toMatchObject({ matched: 4, not_matched: 8 });
    expect(res.body.results.map((r: { event_id: string }) => r.event_id)).toEqual([...stored].reverse());
    expect(res.body.results[0]).toEqual({ event_id: stored[11], matched: false });
    expect(res.body.results[1]).toEqual({ event_id: stored[10], matched: true });
    expect(await pipeline.store.prisma.event.findMany({ orderBy: { id: 'asc' } })).toEqual(before);
  });

  it('reads headers, path, query and a text body as the worker does; `events` takes the newest N', async () => {
    const cel = await dryRun({ filter: { cel: 'headers["x-env"] == "prod"' }, events: 4 }).expect(200);
    expect(cel.body).toMatchObject({ matched: 4, not_matched: 0 });
    expect(cel.body.results.map((r: { event_id: string }) => r.event_id)).toEqual(stored.slice(8).reverse());
    const text = await dryRun({ filter: { body: { $startsWith: 'plain' }, path: '/orders' } }).expect(200);
    expect(text.body).toMatchObject({ matched: 4, not_matched: 8 });
    const query = await dryRun({ filter: { query: { n: '3' } } }).expect(200);
    expect(query.body.matched).toBe(1);
  });

  it('tries the given event_ids only, in their order, and refuses an id that is not the rule’s', async () => {
    const res = await dryRun({ filter: { body: { amount: 0 } }, event_ids: [stored[3], stored[0]] }).expect(200);
    expect(res.body).toEqual({
      matched: 1,
      not_matched: 1,
      results: [
        { event_id: stored[3], matched: false },
        { event_id: stored[0], matched: true },
      ],
    });
    const other = (await pipeline.store.prisma.event.findFirstOrThrow({ where: { source: 'other' } })).id;
    const refused = await dryRun({ filter: { body: {} }, event_ids: [stored[0], other] }).expect(404);
    expect(refused.body).toMatchObject({ code: 'not_found' });
    await dryRun({ filter: { body: {} }, event_ids: [randomUUID()] }).expect(404);
  });

  it('never matches a masked header by its secret value: the filter sees it as the events API shows it', async () => {
    const secret = await dryRun({ filter: { headers: { 'x-api-key': 'the-secret-key' } } }).expect(200);
    expect(secret.body.matched).toBe(0);
    const prefix = await dryRun({ filter: { cel: 'headers["x-api-key"].startsWith("the")' } }).expect(200);
    expect(prefix.body.matched).toBe(0);
    const masked = await dryRun({ filter: { headers: { 'x-api-key': { $exist: true } } } }).expect(200);
    expect(masked.body.matched).toBe(12);
  });

  it('refuses bad input with 400: a bad filter names its part; events within 1..1000; not events and ids', async () => {
    const bad = await dryRun({ filter: { body: { amount: { $gtt: 1 } } } }).expect(400);
    expect(bad.body.code).toBe('validation_failed');
    expect(bad.body.errors.map((e: { field: string }) => e.field)).toContain('filter.body.amount.$gtt');
    await dryRun({ filter: { body: {} }, events: 1_000 }).expect(200);
    for (const events of [0, 1_001, 2.5]) await dryRun({ filter: { body: {} }, events }).expect(400);
    await dryRun({ filter: { body: {} }, event_ids: Array.from({ length: 1_001 }, randomUUID) }).expect(400);
    await dryRun({ filter: { body: {} }, events: 5, event_ids: [stored[0]] }).expect(400);
    await dryRun({ events: 5 }).expect(400);
  });

  it("tries a destination's saved filter, or the typed one for it; another rule's destination is a 404", async () => {
    const addDestination = async (rule: string, body: object) =>
      (
        await pipeline.http
          .post(`/rules/${rule}/destinations`)
          .set('authorization', admin)
          .send({ target_url: 'https://example.com/d', ...body })
          .expect(201)
      ).body.id as string;
    const prod = await addDestination(ruleId, { filter: { headers: { 'x-env': 'prod' } } });
    const all = await addDestination(ruleId, {});
    // Its saved filter: the six prod webhooks.
    expect((await dryRun({ destination_id: prod }).expect(200)).body).toMatchObject({ matched: 6, not_matched: 6 });
    // No filter saved: every webhook would go.
    expect((await dryRun({ destination_id: all, events: 5 }).expect(200)).body).toMatchObject({
      matched: 5,
      not_matched: 0,
    });
    // Typed beside it (the editor's case): the typed filter decides.
    const typed = await dryRun({ destination_id: prod, filter: { query: { n: '1' } } }).expect(200);
    expect(typed.body).toMatchObject({ matched: 1, not_matched: 11 });
    const otherRule = (
      await pipeline.http
        .post('/rules')
        .set('authorization', admin)
        .send({ source: 'dry-other', target_url: 'https://example.com/o' })
        .expect(201)
    ).body.id as string;
    const foreign = await addDestination(otherRule, {});
    expect((await dryRun({ destination_id: foreign }).expect(404)).body.code).toBe('not_found');
    await dryRun({ destination_id: foreign, filter: { body: {} } }).expect(404);
    await dryRun({ destination_id: randomUUID() }).expect(404);
    await dryRun({ destination_id: 'not-a-uuid' }).expect(400);
  });

  it("answers 404 for another organization's rule and an unknown one", async () => {
    const orgB = await createOrganization(pipeline, 'dry-b');
    const adminB = (await userCredential(pipeline, 'admin', orgB)).authorization;
    await dryRun({ filter: { body: {} } }, ruleId, adminB).expect(404);
    await dryRun({ filter: { body: {} } }, randomUUID()).expect(404);
  });

  it('is for admins and keys with events:read', async () => {
    const viewer = (await userCredential(pipeline, 'viewer')).authorization;
    const rulesOnly = await apiKeyCredential(pipeline, ['rules:read', 'rules:write']);
    const eventsKey = await apiKeyCredential(pipeline, ['events:read']);
    expect((await dryRun({ filter: { body: {} } }, ruleId, viewer)).status).toBe(403);
    expect((await dryRun({ filter: { body: {} } }, ruleId, rulesOnly)).status).toBe(403);
    await dryRun({ filter: { body: {} } }, ruleId, eventsKey).expect(200);
  });
});
