import { startTargetServer, waitFor, type TargetServer } from '@relay/test-support';
import { apiKeyCredential, startPipeline, userCredential, type Pipeline } from './harness';

// Seeing and acting on destination deliveries end to end (docs/routing.md, "Seeing and acting on deliveries"):
// the list's delivery filters and counts, and retry, acknowledge and bulk retry of one destination's delivery,
// against real target servers and the real worker.

let pipeline: Pipeline;
let admin: string;
let primary: TargetServer;
let flaky: TargetServer;
let steady: TargetServer;
let ruleId: string;
let flakyId: string;
let steadyId: string;
/** Two webhooks of the rule: each delivered on the primary and to `steady`, failed to `flaky`. */
const events: string[] = [];

const prisma = () => pipeline.store.prisma;
const post = (path: string, body?: object, credential = admin) => {
  const req = pipeline.http.post(path).set('authorization', credential);
  return body === undefined ? req : req.send(body);
};
const get = (path: string) => pipeline.http.get(path).set('authorization', admin);
const deliveryTo = (eventId: string, destinationId: string) =>
  prisma().delivery.findUniqueOrThrow({ where: { eventId_destinationId: { eventId, destinationId } } });
const waitForDelivery = (eventId: string, destinationId: string, status: string) =>
  waitFor(
    async () => ((await deliveryTo(eventId, destinationId)).status === status ? true : undefined),
    15_000,
    `delivery of ${eventId} to ${destinationId} to be ${status}`,
  );
const requests = (target: TargetServer) => target.requests.filter((r) => r.url === '/acts');
const listIds = async (query: string) =>
  ((await get(`/events?source=acts&${query}`).expect(200)).body.events as { id: string }[]).map((e) => e.id);

beforeAll(async () => {
  [primary, flaky, steady] = [await startTargetServer(), await startTargetServer(), await startTargetServer()];
  pipeline = await startPipeline();
  admin = (await userCredential(pipeline, 'admin')).authorization;
  ruleId = (await post('/rules', { source: 'acts', target_url: `${primary.url}/acts` }).expect(201)).body.id as string;
  const add = async (target: TargetServer) =>
    (await post(`/rules/${ruleId}/destinations`, { target_url: `${target.url}/acts` }).expect(201)).body.id as string;
  flakyId = await add(flaky);
  steadyId = await add(steady);
  flaky.replyWith(503);
  for (let i = 0; i < 2; i++) {
    const id = (await pipeline.http.post('/acts').send({ i }).expect(202)).body.id as string;
    events.unshift(id); // newest first, as the list answers
    await pipeline.waitForStatus(id, 'delivered');
    await waitForDelivery(id, flakyId, 'failed');
    await waitForDelivery(id, steadyId, 'delivered');
  }
});
afterAll(async () => {
  await pipeline.close();
  await Promise.all([primary, flaky, steady].map((t) => t.close()));
});

describe('seeing deliveries', () => {
  it('lists events by delivery status and destination, each with its delivery counts', async () => {
    expect(await listIds('delivery_status=failed')).toEqual(events);
    expect(await listIds(`delivery_status=failed&destination_id=${flakyId}`)).toEqual(events);
    expect(await listIds(`delivery_status=failed&destination_id=${steadyId}`)).toEqual([]);
    expect(await listIds(`destination_id=${steadyId}`)).toEqual(events);
    expect(await listIds('delivery_status=queued')).toEqual([]);
    const page = (await get('/events?source=acts').expect(200)).body;
    for (const e of page.events)
      expect(e.delivery_counts).toEqual({ total: 2, queued: 0, delivered: 1, failed: 1, paused: 0 });
    const bad = await get('/events?delivery_status=ignored').expect(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field)).toEqual(['delivery_status']);
    await get('/events?destination_id=nope').expect(400);
  });
});

describe('acting on one delivery', () => {
  it('retries one delivery alone: a new run with the same webhook-id; the primary and the others untouched', async () => {
    const [eventId] = events as [string];
    const before = await deliveryTo(eventId, flakyId);
    const primaryRequests = requests(primary).length;
    const steadyRequests = requests(steady).length;
    flaky.replyWith(200);
    const res = await post(`/events/${eventId}/retry`, { destination_id: flakyId }).expect(202);
    expect(res.body).toEqual({ id: eventId, status: 'queued', destination_id: flakyId });
    await waitForDelivery(eventId, flakyId, 'delivered');
    expect(await deliveryTo(eventId, flakyId)).toMatchObject({
      attemptCount: before.attemptCount + 1,
      runStartAttempt: before.attemptCount,
      failureReason: null,
    });
    const last = requests(flaky).at(-1)!;
    expect(last.headers['webhook-id']).toBe(before.id);
    expect(requests(primary)).toHaveLength(primaryRequests);
    expect(requests(steady)).toHaveLength(steadyRequests);
    expect(await pipeline.eventById(eventId)).toMatchObject({ status: 'delivered', attemptCount: 1 });
    const detail = (await get(`/events/${eventId}`).expect(200)).body;
    expect(detail.delivery_counts).toEqual({ total: 2, queued: 0, delivered: 2, failed: 0, paused: 0 });
    expect(detail.deliveries.find((d: { destination_id: string }) => d.destination_id === flakyId)).toMatchObject({
      status: 'delivered',
      attempt_count: before.attemptCount + 1,
      acknowledged: false,
      next_attempt_at: null,
    });
    const audit = await prisma().auditEntry.findFirstOrThrow({
      where: { action: 'delivery.retried', resourceId: eventId },
    });
    expect(audit.metadata).toMatchObject({ destination_id: flakyId });
  });

  it('acknowledges a failed delivery; refuses one that is not failed, and an unknown destination', async () => {
    const eventId = events[1]!;
    const res = await post(`/events/${eventId}/ack`, { destination_id: flakyId }).expect(200);
    // The answer is the event; the event itself (delivered on the primary) is not acknowledged.
    expect(res.body).toMatchObject({
      id: eventId,
      status: 'delivered',
      acknowledged: false,
      delivery_counts: { total: 2, failed: 1, delivered: 1 },
    });
    const detail = (await get(`/events/${eventId}`).expect(200)).body;
    expect(detail.deliveries.find((d: { destination_id: string }) => d.destination_id === flakyId)).toMatchObject({
      status: 'failed',
      acknowledged: true,
    });
    await post(`/events/${eventId}/ack`, { destination_id: flakyId }).expect(200);
    const notFailed = await post(`/events/${eventId}/ack`, { destination_id: steadyId }).expect(409);
    expect(notFailed.body.code).toBe('delivery_not_failed');
    const unknown = await post(`/events/${eventId}/retry`, { destination_id: ruleId }).expect(404);
    expect(unknown.body.code).toBe('delivery_not_found');
    await post(`/events/${eventId}/ack`, { destination_id: ruleId }).expect(404);
    expect(await prisma().auditEntry.count({ where: { action: 'delivery.acknowledged', resourceId: eventId } })).toBe(
      2,
    );
  });

  it('refuses a paused delivery (its destination is unhealthy) and a queued one with their codes', async () => {
    const eventId = events[1]!;
    const { id } = await deliveryTo(eventId, steadyId);
    await prisma().delivery.updateMany({ where: { id }, data: { status: 'paused' } });
    expect((await post(`/events/${eventId}/retry`, { destination_id: steadyId }).expect(409)).body.code).toBe(
      'delivery_paused',
    );
    // Queued, due far ahead: the sweeper leaves it alone meanwhile.
    await prisma().delivery.updateMany({
      where: { id },
      data: { status: 'queued', nextAttemptAt: new Date(Date.now() + 3_600_000) },
    });
    expect((await post(`/events/${eventId}/retry`, { destination_id: steadyId }).expect(409)).body.code).toBe(
      'event_not_retryable',
    );
    await prisma().delivery.updateMany({ where: { id }, data: { status: 'delivered', nextAttemptAt: null } });
  });

  it("bulk retries one destination's deliveries of the selected events", async () => {
    const res = await post('/events/bulk/retry', {
      filter: { source: 'acts', delivery_status: 'failed', destination_id: flakyId },
      destination_id: flakyId,
    }).expect(200);
    expect(res.body).toEqual({ affected: 1, ids: [events[1]], truncated: false });
    await waitForDelivery(events[1]!, flakyId, 'delivered');
    const entry = await prisma().auditEntry.findFirstOrThrow({ where: { action: 'deliveries.bulk_retried' } });
    expect(entry.metadata).toMatchObject({ destination_id: flakyId, by: 'filter', affected: 1 });
    // Nothing failed is left to that destination: the next call acts on none.
    const again = await post('/events/bulk/retry', {
      filter: { source: 'acts', delivery_status: 'failed' },
      destination_id: flakyId,
    }).expect(200);
    expect(again.body).toEqual({ affected: 0, ids: [], truncated: false });
    expect(await pipeline.eventById(events[1]!)).toMatchObject({ status: 'delivered', attemptCount: 1 });
  });

  it('checks the body and takes the same roles and scopes as the primary retry and ack', async () => {
    const eventId = events[0]!;
    const bad = await post(`/events/${eventId}/retry`, { destination_id: 'nope' }).expect(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field)).toEqual(['destination_id']);
    await post(`/events/${eventId}/ack`, { destination_id: flakyId, extra: 1 }).expect(400);
    const viewer = (await userCredential(pipeline, 'viewer')).authorization;
    const reader = await apiKeyCredential(pipeline, ['events:read']);
    const sender = await apiKeyCredential(pipeline, ['webhooks:send']);
    for (const credential of [viewer, reader]) {
      await post(`/events/${eventId}/retry`, { destination_id: flakyId }, credential).expect(403);
      await post(`/events/${eventId}/ack`, { destination_id: flakyId }, credential).expect(403);
      await post('/events/bulk/retry', { ids: [eventId], destination_id: flakyId }, credential).expect(403);
    }
    await post(`/events/${eventId}/retry`, { destination_id: flakyId }, sender).expect(202);
    await waitForDelivery(eventId, flakyId, 'delivered');
  });
});
