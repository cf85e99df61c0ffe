import { startTargetServer, waitFor, type TargetServer } from '@relay/test-support';
import { startPipeline, TEST_QUEUE_SHARDS, type Pipeline } from './harness';

// Issue 11, item 5: a hanging target may not hold the whole delivery pool while another target's
// events wait. Behaviour, not timing: the healthy target's events all arrive while the hanging
// target's events are still pending, and waiting their turn never counts an attempt.
let pipeline: Pipeline;
// The pool one origin alone may use: DELIVERY_CONCURRENCY (8), split between the queue shards (the events of this
// test, without a rule, are all on one shard): 8 on one shard, 3 of 8 on the cluster suite's three.
const ALONE = Math.ceil(8 / TEST_QUEUE_SHARDS);
let healthy: TargetServer;
let hanging: TargetServer;

beforeAll(async () => {
  healthy = await startTargetServer();
  hanging = await startTargetServer();
  hanging.replyWith('hang');
  pipeline = await startPipeline({
    api: { DEFAULT_TARGET_URL: `${healthy.url}/ok`, ALLOW_PUBLIC_TARGET_OVERRIDE: 'true' },
    worker: {
      DELIVERY_CONCURRENCY: '8',
      // The hanging target never answers within the test: its slots stay held throughout.
      DELIVERY_TIMEOUT_MS: '600000',
      DELIVERY_FAIR_WAIT_MS: '200',
      DELIVERY_FAIR_WAIT_MAX_MS: '400',
      // Waiting for a turn is not a fault: were it counted, the first wait would fail the event.
      DELIVERY_FAULT_MAX_DEFERS: '0',
    },
  });
});
afterAll(async () => {
  // The hanging target goes first, so the worker's requests to it end and the worker can close.
  await hanging.close();
  await pipeline.close();
  await healthy.close();
});

async function ingest(body: unknown, headers: Record<string, string> = {}): Promise<string> {
  const res = await pipeline.http
    .post('/src')
    .set({ 'content-type': 'application/json', ...headers })
    .send(JSON.stringify(body))
    .expect(202);
  return res.body.id as string;
}

describe('fair delivery', () => {
  it('keeps delivering a healthy target beside 100 events pending on a hanging one', async () => {
    const hangingIds: string[] = [];
    for (let i = 0; i < 100; i++) hangingIds.push(await ingest({ i }, { 'x-target-url': `${hanging.url}/stuck` }));
    // Alone, the hanging origin takes the whole pool of its shard, but not the reserve (2 more jobs on one shard).
    await hanging.waitForRequests(ALONE);
    const healthyIds: string[] = [];
    for (let i = 0; i < 200; i++) healthyIds.push(await ingest({ i }));

    await waitFor(
      async () =>
        (await pipeline.store.prisma.event.count({ where: { id: { in: healthyIds }, status: 'delivered' } })) ===
        healthyIds.length,
      // A deadline for a stuck test, not a speed bound: a busy machine may take far longer than an idle one.
      240_000,
      'every healthy event to be delivered',
    );
    const stuck = await pipeline.store.prisma.event.findMany({ where: { id: { in: hangingIds } } });
    // Still queued after waiting for their turn several times (every 200-400 ms for seconds).
    expect(stuck.every((event) => event.status === 'queued')).toBe(true);
    // Waiting for a turn is not an attempt: none of the hanging target's events has one.
    expect(stuck.every((event) => event.attemptCount === 0)).toBe(true);
    // It still holds only what it took while alone, however often its events asked again.
    expect(hanging.requests.length).toBe(ALONE);
    expect(new Set(healthy.requests.map((r) => r.headers['webhook-id'])).size).toBe(200);
  }, 300_000);
});
