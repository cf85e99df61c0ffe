import type { OrgId } from '@relay/core';
import { createDeliveryQueue, createRedisConnection } from '@relay/queue';
import { startTargetServer, waitFor, type TargetServer } from '@relay/test-support';
import { REDIS_URL, startPipeline, userCredential, type Pipeline } from './harness';

// Each case delivers hundreds of events and waits up to a minute for them on a loaded machine.
jest.setTimeout(120_000);

// Issue 11, item 1: an outcome the relay cannot store must not poison its batch, and an event the
// relay cannot finish for its own fault must end `failed` with the reason instead of looping.
let pipeline: Pipeline;
let healthy: TargetServer;
let poison: TargetServer;

beforeAll(async () => {
  healthy = await startTargetServer();
  poison = await startTargetServer();
  pipeline = await startPipeline({
    api: { DEFAULT_TARGET_URL: `${healthy.url}/ok`, ALLOW_PUBLIC_TARGET_OVERRIDE: 'true' },
    // No worker is killed here: production's lock duration, so a busy machine that stalls the event loop for
    // more than FAST_WORKER_ENV's 1 s lock does not have BullMQ redeliver a job (delivery is at least once).
    worker: { DELIVERY_FAULT_MAX_DEFERS: '2', DELIVERY_FAULT_DEFER_MS: '50', WORKER_LOCK_DURATION_MS: '30000' },
  });
});
afterAll(async () => {
  await pipeline.close();
  await healthy.close();
  await poison.close();
});
beforeEach(() => {
  healthy.requests.length = 0;
  poison.requests.length = 0;
});

async function ingest(n: number, headers: Record<string, string> = {}): Promise<string> {
  const res = await pipeline.http
    .post('/src')
    .set({ 'content-type': 'application/json', ...headers })
    .send(JSON.stringify({ n }))
    .expect(202);
  return res.body.id as string;
}

/** `healthyCount` events to the healthy target, with `poisonCount` to the poison target spread among them. */
async function ingestMixed(healthyCount: number, poisonCount: number) {
  const every = Math.floor(healthyCount / poisonCount);
  const healthyIds: string[] = [];
  const poisonIds: string[] = [];
  for (let start = 0; start < healthyCount; start += 50) {
    const chunk = Array.from({ length: Math.min(50, healthyCount - start) }, (_, i) => start + i);
    const ids = await Promise.all(
      chunk.map(async (n) => {
        const id = await ingest(n);
        if (n % every === every - 1 && poisonIds.length < poisonCount)
          poisonIds.push(await ingest(-n, { 'x-target-url': `${poison.url}/poison` }));
        return id;
      }),
    );
    healthyIds.push(...ids);
  }
  return { healthyIds, poisonIds };
}

function copiesPerEvent(target: TargetServer): Map<string, number> {
  const copies = new Map<string, number>();
  for (const request of target.requests) {
    const id = String(request.headers['webhook-id']);
    copies.set(id, (copies.get(id) ?? 0) + 1);
  }
  return copies;
}

async function waitForSettled(ids: string[], timeoutMs: number) {
  await waitFor(
    async () =>
      (await pipeline.store.prisma.event.count({ where: { id: { in: ids }, status: { not: 'queued' } } })) ===
      ids.length,
    timeoutMs,
    `${ids.length} events to leave queued`,
  );
}

describe('no poison outcome', () => {
  it('stores a NUL-holding answer safely beside 1,000 healthy events, each delivered once', async () => {
    poison.replyWith({ status: 200, body: 'bad\u0000answer\u0000' });
    const { healthyIds, poisonIds } = await ingestMixed(1_000, 10);
    await waitForSettled([...healthyIds, ...poisonIds], 60_000);

    const copies = copiesPerEvent(healthy);
    expect(copies.size).toBe(1_000);
    expect([...copies.values()].filter((n) => n > 1)).toEqual([]);
    for (const id of poisonIds) {
      expect((await pipeline.eventById(id))?.status).toBe('delivered');
      const attempts = await pipeline.attemptsOf(id);
      expect(attempts).toHaveLength(1);
      // NUL cannot live in Postgres text: it is stored as U+FFFD, the rest of the excerpt as sent.
      expect(attempts[0]).toMatchObject({ responseStatus: 200, responseBody: 'bad\uFFFDanswer\uFFFD' });
    }
    expect(copiesPerEvent(poison).size).toBe(10);
    expect(poison.requests).toHaveLength(10);
  });

  it('records an outcome that cannot be stored as failed (relay_error) after the bound, alone', async () => {
    // A real Postgres refusal of one row (as a NUL was before): a trigger rejects attempts that
    // carry the marker, whatever statement writes them.
    await pipeline.store.prisma.$executeRawUnsafe(`
      CREATE FUNCTION refuse_poison() RETURNS trigger AS $$
      BEGIN
        IF NEW.response_body LIKE '%POISON%' THEN RAISE EXCEPTION 'test trigger refuses this attempt'; END IF;
        RETURN NEW;
      END $$ LANGUAGE plpgsql`);
    await pipeline.store.prisma.$executeRawUnsafe(
      'CREATE TRIGGER refuse_poison BEFORE INSERT ON delivery_attempts FOR EACH ROW EXECUTE FUNCTION refuse_poison()',
    );
    poison.replyWith({ status: 200, body: 'POISON' });
    const { healthyIds, poisonIds } = await ingestMixed(300, 3);
    await waitForSettled([...healthyIds, ...poisonIds], 60_000);

    // The healthy events of the failed batches were written one by one, never delivered again.
    const copies = copiesPerEvent(healthy);
    expect(copies.size).toBe(300);
    expect([...copies.values()].filter((n) => n > 1)).toEqual([]);
    for (const id of poisonIds) {
      const event = await pipeline.eventById(id);
      expect(event).toMatchObject({ status: 'failed', failureReason: 'relay_error', attemptCount: 1 });
      expect(event?.lastError).toMatch(/^relay_error: .*test trigger refuses this attempt/);
      const attempts = await pipeline.attemptsOf(id);
      expect(attempts).toHaveLength(1);
      expect(attempts[0]).toMatchObject({ responseBody: null, error: event?.lastError });
    }
    // The first try and two defers (DELIVERY_FAULT_MAX_DEFERS=2): bounded, then given up.
    const poisonCopies = copiesPerEvent(poison);
    expect(poisonCopies.size).toBe(3);
    expect([...poisonCopies.values()]).toEqual([3, 3, 3]);
  });

  it('bounds a hook whose attempt cannot be stored the same way (the trigger of the test above)', async () => {
    const admin = (await userCredential(pipeline, 'admin')).authorization;
    const rule = await pipeline.http
      .post('/rules')
      .set('authorization', admin)
      .send({ source: 'hooked', target_url: `${healthy.url}/hooked` })
      .expect(201);
    await pipeline.http
      .post(`/rules/${rule.body.id}/hooks`)
      .set('authorization', admin)
      .send({ target_url: `${poison.url}/hook`, trigger: 'provider_succeeded' })
      .expect(201);
    poison.replyWith({ status: 200, body: 'POISON' });
    const res = await pipeline.http.post('/hooked').set('content-type', 'application/json').send('{}').expect(202);
    const id = res.body.id as string;
    await pipeline.waitForStatus(id, 'delivered');
    const hookAttempt = await waitFor(
      async () => (await pipeline.attemptsOf(id)).find((a) => a.kind === 'hook'),
      10_000,
      'the hook attempt',
    );
    expect(hookAttempt).toMatchObject({ responseBody: null, responseStatus: null });
    // Prisma's message is long; the stored text keeps its first 500 characters.
    expect(hookAttempt.error).toMatch(/^relay_error: [\s\S]*Database error/);
    expect(poison.requests).toHaveLength(3);
  });

  it('drops a job that names no event instead of deferring it forever', async () => {
    const redis = createRedisConnection(REDIS_URL, 'producer');
    const queue = createDeliveryQueue({ connection: redis, prefix: pipeline.prefix });
    try {
      await queue.enqueue([{ orgId: 'not-an-org' as OrgId, eventId: 'not-an-event', ruleId: null }]);
      const ids = await Promise.all(Array.from({ length: 20 }, (_, n) => ingest(n)));
      await waitForSettled(ids, 10_000);
      await waitFor(
        async () => (await queue.queues[0]!.getJob('not-an-event')) === undefined,
        30_000,
        'the job to end',
      );
      expect(copiesPerEvent(healthy).size).toBe(20);
    } finally {
      await queue.close();
      redis.disconnect();
    }
  });
});
