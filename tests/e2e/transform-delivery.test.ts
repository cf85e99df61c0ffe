import { startTargetServer, waitFor, type ReceivedRequest, type TargetServer } from '@relay/test-support';
import { startPipeline, userCredential, type Pipeline } from './harness';

// Transforms in the delivery worker (docs/transformations.md): what the targets receive, the same bytes on every
// automatic retry, a fresh run after a manual retry, a runaway failing only its own delivery, forward_path_query.

const PATIENCE = 60_000;
jest.setTimeout(4 * PATIENCE);

const CHAT = `addHandler('transform', (request, context) => {
  console.log('for', context.rule_id);
  request.body = { text: request.body.pusher.name + ' pushed to ' + request.body.repository.full_name };
  request.headers['x-kind'] = 'chat';
  request.headers['x-relay-event-id'] = 'forged';
  return request;
});`;
// A body that would differ on every run: only a stored output makes retries identical.
const RANDOM = `addHandler('transform', (request) => { request.body = { n: Math.random() }; return request; });`;
const version = (v: number) => `addHandler('transform', (request) => { request.body = { v: ${v} }; return request; });`;

let pipeline: Pipeline;
let admin: string;
const targets: TargetServer[] = [];
beforeAll(async () => {
  for (let i = 0; i < 3; i++) targets.push(await startTargetServer());
  pipeline = await startPipeline({
    worker: {
      DEFAULT_SIGNING_SECRET: 'whsec_dHJhbnNmb3JtLXNlY3JldA==',
      TRANSFORM_TIMEOUT_MS: '300',
      // The harness's 1 s job lock is for tests of crash recovery: here, on a loaded machine, a burst of 500 waiting
      // for the two sandboxes could let a lock lapse (its renewal timer late), and the stalled job would be sent
      // twice, as after a crash. Counting exact sends needs the production lock.
      WORKER_LOCK_DURATION_MS: '30000',
      WORKER_STALLED_INTERVAL_MS: '30000',
      // Likewise the harness's 2 s delivery timeout: a local target answering later than that under the whole suite
      // would have its request retried and received twice (a fresh clone once received 510 of the 500; which way is
      // not known, and sentTwice below would tell).
      DELIVERY_TIMEOUT_MS: '15000',
    },
  });
  admin = (await userCredential(pipeline, 'admin')).authorization;
});
afterAll(async () => {
  await pipeline.close();
  await Promise.all(targets.map((t) => t.close()));
});
beforeEach(() => targets.forEach((t) => (t.replyWith(200), (t.requests.length = 0))));

const prisma = () => pipeline.store.prisma;
const createRule = async (source: string, body: object) =>
  (
    await pipeline.http
      .post('/rules')
      .set('authorization', admin)
      .send({ source, ...body })
      .expect(201)
  ).body.id as string;
const addDestination = async (ruleId: string, body: object) =>
  (await pipeline.http.post(`/rules/${ruleId}/destinations`).set('authorization', admin).send(body).expect(201)).body
    .id as string;
const ingest = async (path: string, body: object = { n: 1 }) =>
  (await pipeline.http.post(`/${path}`).set('content-type', 'application/json').send(JSON.stringify(body)).expect(202))
    .body.id as string;
const deliveryOf = (eventId: string, destinationId: string) =>
  prisma().delivery.findUnique({ where: { eventId_destinationId: { eventId, destinationId } } });
const waitForDelivery = (eventId: string, destinationId: string, status: string) =>
  waitFor(
    async () => {
      const delivery = await deliveryOf(eventId, destinationId);
      return delivery?.status === status ? delivery : undefined;
    },
    PATIENCE,
    `delivery of ${eventId} to be ${status}`,
  );
const json = (body: Buffer) => JSON.parse(body.toString('utf8')) as unknown;
// The events a target received more than once: when each copy came (ms after the first) and the attempts stored for
// it, so a failure says whether both sends were recorded (two jobs) or one was not (a send without its outcome).
async function sentTwice(requests: ReceivedRequest[]) {
  const times = new Map<string, number[]>();
  for (const r of requests) {
    const id = String(r.headers['webhook-id']);
    times.set(id, [...(times.get(id) ?? []), r.receivedAt]);
  }
  const twice = [...times].filter(([, at]) => at.length > 1);
  return Promise.all(
    twice.map(async ([id, at]) => ({
      id,
      afterFirstMs: at.map((t) => t - at[0]!),
      attempts: (await pipeline.attemptsOf(id)).map((a) => ({ n: a.attemptNumber, at: a.startedAt, error: a.error })),
    })),
  );
}

describe('transforms in delivery', () => {
  it("sends the primary's and a destination's transformed request; the relay's own headers stay its own", async () => {
    const [primary, other] = targets as [TargetServer, TargetServer];
    const ruleId = await createRule('push', { target_url: `${primary.url}/push`, transform: CHAT });
    const destinationId = await addDestination(ruleId, { target_url: `${other.url}/dest`, transform: version(7) });
    const push = { pusher: { name: 'ann' }, repository: { full_name: 'relay/app' } };
    const eventId = await ingest('push', push);
    await pipeline.waitForStatus(eventId, 'delivered', PATIENCE);
    await waitForDelivery(eventId, destinationId, 'delivered');

    const [sent] = primary.requests;
    expect(json(sent!.body)).toEqual({ text: 'ann pushed to relay/app' });
    expect(sent!.headers['x-kind']).toBe('chat');
    expect(sent!.headers['x-relay-event-id']).toBe(eventId);
    const event = await pipeline.eventById(eventId);
    expect(Buffer.from(event!.transformedBody!).toString()).toBe(sent!.body.toString());
    expect(event!.transformLogs).toContain(`for ${ruleId}`);
    // The received body stays as received.
    expect(json(Buffer.from(event!.body))).toEqual(push);
    expect(json(other.requests[0]!.body)).toEqual({ v: 7 });
  });

  it('sends the same bytes and X-Relay-Signature on every automatic retry (500, then 200)', async () => {
    const [primary, other] = targets as [TargetServer, TargetServer];
    const ruleId = await createRule('again', { target_url: `${primary.url}/again`, transform: RANDOM });
    const destinationId = await addDestination(ruleId, { target_url: `${other.url}/again`, transform: RANDOM });
    primary.replyWith(500, 200);
    other.replyWith(500, 200);
    const eventId = await ingest('again');
    expect(await pipeline.waitForStatus(eventId, 'delivered', PATIENCE)).toMatchObject({ attemptCount: 2 });
    expect(await waitForDelivery(eventId, destinationId, 'delivered')).toMatchObject({ attemptCount: 2 });
    for (const target of [primary, other]) {
      const [first, second] = target.requests;
      expect(second!.body.equals(first!.body)).toBe(true);
      expect(typeof first!.headers['x-relay-signature']).toBe('string');
      expect(second!.headers['x-relay-signature']).toBe(first!.headers['x-relay-signature']);
    }
    expect(primary.requests[0]!.body.equals(other.requests[0]!.body)).toBe(false);
  });

  it('runs the transform in force again on a manual retry', async () => {
    const [primary, other] = targets as [TargetServer, TargetServer];
    const ruleId = await createRule('fixed', { target_url: `${primary.url}/fixed`, transform: version(1) });
    const destinationId = await addDestination(ruleId, { target_url: `${other.url}/fixed`, transform: version(1) });
    const eventId = await ingest('fixed');
    await pipeline.waitForStatus(eventId, 'delivered', PATIENCE);
    await waitForDelivery(eventId, destinationId, 'delivered');
    await pipeline.http
      .patch(`/rules/${ruleId}`)
      .set('authorization', admin)
      .send({ transform: version(2) })
      .expect(200);
    await pipeline.http
      .patch(`/rules/${ruleId}/destinations/${destinationId}`)
      .set('authorization', admin)
      .send({ transform: version(3) })
      .expect(200);
    await pipeline.http.post(`/events/${eventId}/retry`).set('authorization', admin).send({}).expect(202);
    await pipeline.http
      .post(`/events/${eventId}/retry`)
      .set('authorization', admin)
      .send({ destination_id: destinationId })
      .expect(202);
    await primary.waitForRequests(2, PATIENCE);
    await other.waitForRequests(2, PATIENCE);
    expect(primary.requests.map((r) => json(r.body))).toEqual([{ v: 1 }, { v: 2 }]);
    expect(other.requests.map((r) => json(r.body))).toEqual([{ v: 1 }, { v: 3 }]);
  });

  it('fails only the delivery whose transform never ends (transform_error); 500 others complete', async () => {
    const [primary] = targets as [TargetServer];
    await createRule('loop', {
      target_url: `${primary.url}/loop`,
      transform: `addHandler('transform', (request) => { console.log('spinning'); while (true) {} });`,
    });
    await createRule('plain', { target_url: `${primary.url}/plain`, transform: version(0) });
    const looping = await ingest('loop');
    const others = await Promise.all(Array.from({ length: 500 }, (_, n) => ingest('plain', { n })));
    for (const id of others) await pipeline.waitForStatus(id, 'delivered', PATIENCE);
    const failed = await pipeline.waitForStatus(looping, 'failed', PATIENCE);
    expect(failed).toMatchObject({ failureReason: 'transform_error', attemptCount: 1 });
    const [attempt] = await pipeline.attemptsOf(looping);
    expect(attempt).toMatchObject({ responseStatus: null });
    expect(attempt!.error).toMatch(/^transform_error: timeout: /);
    expect(attempt!.error).toContain('spinning');
    expect(primary.requests.filter((r) => r.url === '/loop')).toHaveLength(0);
    const plain = primary.requests.filter((r) => r.url === '/plain');
    expect(await sentTwice(plain)).toEqual([]);
    expect(plain).toHaveLength(500);
  });

  it("appends the path and query (the transform's, else as received) only with forward_path_query", async () => {
    const [primary] = targets as [TargetServer];
    const moved = `addHandler('transform', (request) => {
      request.path = '/moved' + request.path; request.query = { a: ['1', '2'] }; return request; });`;
    await createRule('fpq', { target_url: `${primary.url}/fpq`, transform: moved, forward_path_query: true });
    await createRule('fpqraw', { target_url: `${primary.url}/raw`, forward_path_query: true });
    await createRule('nofpq', { target_url: `${primary.url}/none`, transform: moved });
    for (const path of ['fpq/orders?env=prod', 'fpqraw/orders?env=prod', 'nofpq/orders?env=prod']) {
      await pipeline.waitForStatus(await ingest(path), 'delivered', PATIENCE);
    }
    expect(primary.requests.map((r) => r.url).sort()).toEqual(
      ['/fpq/moved/orders?a=1&a=2', '/none', '/raw/orders?env=prod'].sort(),
    );
  });
});
