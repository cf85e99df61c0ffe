import { feedDeliveryStatusSchema } from '../../packages/contracts/src/stream.schemas';
import { startTargetServer, type TargetServer } from '@relay/test-support';
import type { ApiRuntime } from '../../apps/api/src/runtime';
import { createOrganization, startApiReplica, startPipeline, userCredential, type Pipeline } from './harness';
import { listen, openStream, type SseClient, type SseMessage } from './sse-client';

// The live feed carries destination deliveries (docs/routing.md, "Destinations"): `delivery.status` messages from
// the worker (made, attempted, paused, failed) and the API (resumed), read from another api process than the one
// that takes the webhooks, replayed on Last-Event-ID, and only ever to the delivery's own organization.

const PATIENCE = 60_000;
jest.setTimeout(4 * PATIENCE);

let pipeline: Pipeline;
let replica: ApiRuntime;
let streamApi: { url: string; close(): Promise<void> };
let primary: TargetServer;
let ok: TargetServer;
let flaky: TargetServer;
let admin: string;
let viewer: string;
const open: SseClient[] = [];

beforeAll(async () => {
  [primary, ok, flaky] = await Promise.all([startTargetServer(), startTargetServer(), startTargetServer()]);
  pipeline = await startPipeline();
  replica = startApiReplica(pipeline);
  streamApi = await listen(replica.app);
  admin = (await userCredential(pipeline, 'admin')).authorization;
  viewer = (await userCredential(pipeline, 'viewer')).authorization;
});
afterAll(async () => {
  for (const client of open) client.close();
  await streamApi.close();
  await replica.close();
  await pipeline.close();
  await Promise.all([primary, ok, flaky].map((t) => t.close()));
});

const stream = async (authorization: string, headers: Record<string, string> = {}) => {
  const client = await openStream(`${streamApi.url}/events/stream`, { authorization, ...headers });
  expect(client.status).toBe(200);
  open.push(client);
  return client;
};
const createRule = async (source: string) =>
  (
    await pipeline.http
      .post('/rules')
      .set('authorization', admin)
      .send({ source, target_url: `${primary.url}/${source}` })
      .expect(201)
  ).body.id as string;
const addDestination = async (ruleId: string, targetUrl: string) =>
  (
    await pipeline.http
      .post(`/rules/${ruleId}/destinations`)
      .set('authorization', admin)
      .send({ target_url: targetUrl })
      .expect(201)
  ).body.id as string;
const ingest = async (source: string) =>
  (await pipeline.http.post(`/${source}`).set('content-type', 'application/json').send('{"n":1}').expect(202)).body
    .id as string;

type Delivery = ReturnType<typeof feedDeliveryStatusSchema.parse>;
const deliveries = (client: SseClient, eventId: string, destinationId: string): Delivery[] =>
  client.messages
    .filter((m) => m.event === 'delivery.status')
    .map((m) => feedDeliveryStatusSchema.parse(m.data))
    .filter((d) => d.event_id === eventId && d.destination_id === destinationId);
const aDelivery = (eventId: string, destinationId: string, status: string) => (m: SseMessage) =>
  m.event === 'delivery.status' &&
  (m.data as Delivery).event_id === eventId &&
  (m.data as Delivery).destination_id === destinationId &&
  (m.data as Delivery).status === status;
const steps = (list: Delivery[]) => list.map((d) => `${d.status} ${d.attempt_count}`);

describe('delivery.status on the live feed', () => {
  it("tells each delivery's changes to its organization only, and replays them on Last-Event-ID", async () => {
    const orgB = await createOrganization(pipeline, 'delivery-stream-b');
    const theirs = await stream((await userCredential(pipeline, 'viewer', orgB)).authorization);
    const ours = await stream(viewer);
    const before = String(Date.now() - 1);
    const ruleId = await createRule('routed');
    const fine = await addDestination(ruleId, `${ok.url}/routed`);
    const failing = await addDestination(ruleId, `${flaky.url}/routed`);
    flaky.replyWith(503);
    const eventId = await ingest('routed');

    const delivered = await ours.next(aDelivery(eventId, fine, 'delivered'), PATIENCE);
    const failed = await ours.next(aDelivery(eventId, failing, 'failed'), PATIENCE);
    const rows = await pipeline.store.prisma.delivery.findMany({ where: { eventId } });
    const idOf = (destinationId: string) => rows.find((r) => r.destinationId === destinationId)!.id;
    expect(delivered.data).toEqual({
      event_id: eventId,
      delivery_id: idOf(fine),
      destination_id: fine,
      status: 'delivered',
      attempt_count: 1,
    });
    expect(failed.data).toMatchObject({ delivery_id: idOf(failing), attempt_count: 3 });
    // Made, then each attempt: the retries keep it queued with one more attempt each (DELIVERY_MAX_ATTEMPTS 3).
    expect(steps(deliveries(ours, eventId, fine))).toEqual(['queued 0', 'delivered 1']);
    expect(steps(deliveries(ours, eventId, failing))).toEqual(['queued 0', 'queued 1', 'queued 2', 'failed 3']);
    // Every message is the stream contract's shape (feedDeliveryStatusSchema is strict), ids as SSE ids.
    for (const m of ours.messages.filter((x) => x.event === 'delivery.status')) expect(Number(m.id)).toBeGreaterThan(0);

    // A client resuming from before finds each delivery's last state in the replay, and no destination attempt
    // passed off as the primary's: the replay's attempts are the primary's one.
    const resumed = await stream(viewer, { 'last-event-id': before });
    await resumed.next(aDelivery(eventId, failing, 'failed'), PATIENCE);
    await resumed.next(aDelivery(eventId, fine, 'delivered'), PATIENCE);
    await resumed.next((m) => m.event === 'event.status' && (m.data as { id: string }).id === eventId, PATIENCE);
    const attempts = resumed.messages.filter(
      (m) => m.event === 'attempt' && (m.data as { event_id: string }).event_id === eventId,
    );
    expect(attempts.map((m) => (m.data as { kind: string }).kind)).toEqual(['main']);

    // Another organization's stream heard nothing of it, live or otherwise.
    expect(theirs.messages.filter((m) => m.event === 'delivery.status')).toEqual([]);
    expect(theirs.messages.some((m) => JSON.stringify(m.data).includes(eventId))).toBe(false);
  });

  it('tells a pause (its destination unhealthy) and the queued again of a resume', async () => {
    const ours = await stream(viewer);
    const ruleId = await createRule('paused-feed');
    const gone = await addDestination(ruleId, `${flaky.url}/paused-feed`);
    flaky.replyWith(410);
    const first = await ingest('paused-feed');
    await ours.next(aDelivery(first, gone, 'failed'), PATIENCE);
    const later = await ingest('paused-feed');
    await ours.next(aDelivery(later, gone, 'paused'), PATIENCE);
    flaky.replyWith(200);
    await pipeline.http.post(`/rules/${ruleId}/destinations/${gone}/resume`).set('authorization', admin).expect(200);
    await ours.next(aDelivery(later, gone, 'delivered'), PATIENCE);
    expect(steps(deliveries(ours, first, gone))).toEqual(['queued 0', 'failed 1']);
    // Made paused (the destination was unhealthy by then), queued by the resume, delivered by its one attempt.
    expect(steps(deliveries(ours, later, gone))).toEqual(['paused 0', 'queued 0', 'delivered 1']);
  });
});
