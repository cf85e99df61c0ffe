import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTargetServer, waitFor, type TargetServer } from '@relay/test-support';
import { startPipeline, userCredential, type Pipeline } from './harness';

// Pacing in the delivery worker (docs/rules.md "Pacing"): a rate limit spaces deliveries with one attempt each, a
// 429 with Retry-After holds a destination's next deliveries, a concurrency limit is never exceeded.

const PATIENCE = 60_000;
jest.setTimeout(4 * PATIENCE);

let pipeline: Pipeline;
let admin: string;
let target: TargetServer;
beforeAll(async () => {
  target = await startTargetServer();
  // Four deliveries at once, and no fair share below that: only pacing keeps a target to fewer.
  // Long job locks and attempt timeouts: the test counts one attempt per delivery, and FAST_WORKER_ENV's 1 s lock and
  // 2 s timeout let a loaded machine's stalled event loop redeliver a job or time out an answer (a CI-like run once
  // counted 2 attempts for one of the 50). Pacing's own waits go to BullMQ's delayed set and hold no lock.
  pipeline = await startPipeline({
    worker: {
      DELIVERY_CONCURRENCY: '4',
      DELIVERY_TARGET_SHARE_PERCENT: '100',
      WORKER_LOCK_DURATION_MS: '30000',
      DELIVERY_TIMEOUT_MS: '30000',
    },
  });
  admin = (await userCredential(pipeline, 'admin')).authorization;
});
afterAll(async () => {
  await pipeline.close();
  await target.close();
});
beforeEach(() => {
  target.replyWith(200);
  target.requests.length = 0;
});

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
const ingest = async (source: string, body: object = { n: 1 }) =>
  (
    await pipeline.http
      .post(`/${source}`)
      .set('content-type', 'application/json')
      .send(JSON.stringify(body))
      .expect(202)
  ).body.id as string;
const deliveredDeliveries = (destinationId: string) =>
  prisma().delivery.findMany({ where: { destinationId, status: 'delivered' } });
const pacedWaits = async () =>
  await pipeline.worker!.metrics.registry.getSingleMetricAsString('relay_paced_waits_total');

describe('pacing', () => {
  it("spaces a rule's deliveries to 5/s with a burst of 5: one attempt each, at most 10 in any second", async () => {
    const ruleId = await createRule('rated', {
      target_url: `${target.url}/rated`,
      rate_limit: { limit: 5, period: 'second', burst: 5 },
    });
    // 50 (the count): 9 s of paced waiting, which a loaded machine's polls below do not miss (with 20, 3 s, a
    // first poll slowed past them saw none waiting in the cluster suite).
    const ids = await Promise.all(Array.from({ length: 50 }, (_, n) => ingest('rated', { n })));
    const pacingState = async () =>
      (await pipeline.http.get(`/rules/${ruleId}`).set('authorization', admin).expect(200)).body.pacing_state as {
        waiting: number;
      } | null;
    // The rule's read counts the deliveries the worker holds back (each event waits under its own id) ...
    await waitFor(async () => ((await pacingState())?.waiting ?? 0) > 0, PATIENCE, 'deliveries counted waiting');
    for (const id of ids)
      expect(await pipeline.waitForStatus(id, 'delivered', PATIENCE)).toMatchObject({ attemptCount: 1 });
    // ... and none once each was granted.
    expect(await pacingState()).toMatchObject({ waiting: 0, effective_limit: 5 });
    // When the worker started each attempt (stamped right after the grant): a burst of 5, then 5 a second.
    const starts = (await prisma().deliveryAttempt.findMany({ where: { eventId: { in: ids } } }))
      .map((a) => a.startedAt.getTime())
      .sort((a, b) => a - b);
    expect(starts).toHaveLength(50);
    for (let i = 0; i < starts.length; i++) {
      const inSecond = starts.filter((t) => t >= starts[i]! && t < starts[i]! + 1_000).length;
      expect(inSecond).toBeLessThanOrEqual(10);
    }
    // 15 deliveries past the burst at 5/s take at least 3 s (less a grant's jitter).
    expect(starts[19]! - starts[0]!).toBeGreaterThanOrEqual(2_800);
    expect(await pacedWaits()).toMatch(/relay_paced_waits_total\{delivery="primary",reason="rate"\} [1-9]/);
  });

  it("holds a destination's next deliveries after a 429 with Retry-After: 2", async () => {
    const held = await startTargetServer();
    try {
      const ruleId = await createRule('held', { target_url: `${target.url}/primary` });
      const destinationId = await addDestination(ruleId, { target_url: `${held.url}/held` });
      held.replyWith({ status: 429, headers: { 'retry-after': '2' } }, 200);
      await ingest('held');
      const [refused] = await held.waitForRequests(1, PATIENCE);
      await Promise.all(Array.from({ length: 3 }, (_, n) => ingest('held', { n })));
      await waitFor(async () => (await deliveredDeliveries(destinationId)).length === 4 || undefined, PATIENCE, '4');
      // Every later request at the destination (the 429's retry and the 3 new ones) came after the hold.
      const later = held.requests.slice(1);
      expect(later).toHaveLength(4);
      for (const request of later) expect(request.receivedAt).toBeGreaterThanOrEqual(refused!.receivedAt + 2_000 - 20);
      // The primary target (another key) was not held: the new events reached it before the hold ended.
      const primaryTimes = target.requests.filter((r) => r.url === '/primary').map((r) => r.receivedAt);
      expect(primaryTimes).toHaveLength(4);
      expect(primaryTimes.some((t) => t < refused!.receivedAt + 2_000)).toBe(true);
      expect(await pacedWaits()).toMatch(/relay_paced_waits_total\{delivery="destination",reason="hold"\} [1-9]/);
    } finally {
      await held.close();
    }
  });

  it('never has more than max_concurrency 2 in flight at a destination, with 4 deliveries at once', async () => {
    let inFlight = 0;
    let most = 0;
    const slow = http.createServer((req, res) => {
      inFlight++;
      most = Math.max(most, inFlight);
      req.resume();
      setTimeout(() => {
        inFlight--;
        res.end('ok');
      }, 200);
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(slow.address() as AddressInfo).port}`;
    try {
      const ruleId = await createRule('capped', { target_url: `${target.url}/capped` });
      const destinationId = await addDestination(ruleId, { target_url: `${url}/capped`, max_concurrency: 2 });
      await Promise.all(Array.from({ length: 8 }, (_, n) => ingest('capped', { n })));
      await waitFor(async () => (await deliveredDeliveries(destinationId)).length === 8 || undefined, PATIENCE, '8');
      expect(most).toBe(2);
      const deliveries = await deliveredDeliveries(destinationId);
      expect(deliveries.every((d) => d.attemptCount === 1)).toBe(true);
    } finally {
      slow.closeAllConnections();
      await new Promise<void>((resolve) => slow.close(() => resolve()));
    }
  });
});
