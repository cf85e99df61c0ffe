import { ruleChangesChannel } from '@relay/queue';
import { startTargetServer, waitFor, type TargetServer } from '@relay/test-support';
import { Redis } from 'ioredis';
import type { WorkerRuntime } from '../../apps/delivery-worker/src/runtime';
import { REDIS_URL, startPipeline, userCredential, type Pipeline } from './harness';

// Recovering from a 410 (docs/rules.md, "Endpoint health"), with two workers that each remember a rule for a
// minute: the cache alone can explain nothing here. A rule that turns unhealthy is known to every worker at
// once (a message on Redis), and a resume sends the paused events to the rule's target as it is then.

let pipeline: Pipeline;
let gone: TargetServer;
let fixed: TargetServer;
let admin: string;
let workers: WorkerRuntime[];
let listener: Redis;
const heard: string[] = [];
beforeAll(async () => {
  [gone, fixed] = await Promise.all([startTargetServer(), startTargetServer()]);
  pipeline = await startPipeline({ worker: { RULE_CACHE_MS: '60000' } });
  workers = [pipeline.worker!, pipeline.startWorker()];
  admin = (await userCredential(pipeline, 'admin')).authorization;
  // The test hears the workers' rule changes too: once it has, so have they (the same Redis, the same message).
  listener = new Redis(REDIS_URL);
  listener.on('message', (_channel: string, raw: string) => heard.push((JSON.parse(raw) as { ruleId: string }).ruleId));
  await listener.subscribe(ruleChangesChannel(pipeline.prefix));
});
afterAll(async () => {
  listener.disconnect();
  await pipeline.close();
  await Promise.all([gone.close(), fixed.close()]);
});

const createRule = async (source: string) =>
  (
    await pipeline.http
      .post('/rules')
      .set('authorization', admin)
      .send({ source, target_url: `${gone.url}/${source}` })
      .expect(201)
  ).body.id as string;
const ingest = async (source: string) =>
  (await pipeline.http.post(`/${source}`).set('content-type', 'application/json').send('{"n":1}').expect(202)).body
    .id as string;
const healthOf = async (id: string) =>
  (await pipeline.http.get(`/rules/${id}`).set('authorization', admin).expect(200)).body.health as { status: string };
const requestsTo = (target: TargetServer, source: string) => target.requests.filter((r) => r.url === `/${source}`);
const deliveredBy = async (worker: WorkerRuntime) =>
  ((await worker.metrics.registry.getSingleMetric('relay_deliveries_total')?.get())?.values ?? [])
    .filter((v) => v.labels.outcome === 'delivered')
    .reduce((sum, v) => sum + v.value, 0);

// Both workers deliver for the rule while it is healthy, so both remember it healthy for RULE_CACHE_MS.
async function warmBothWorkers(source: string) {
  const before = await Promise.all(workers.map(deliveredBy));
  await waitFor(async () => {
    const ids = await Promise.all(Array.from({ length: 6 }, () => ingest(source)));
    for (const id of ids) await pipeline.waitForStatus(id, 'delivered');
    const after = await Promise.all(workers.map(deliveredBy));
    return after.every((n, i) => n > before[i]!);
  }, 30_000);
}

// The first webhook's 410 turns the rule unhealthy; returns once every worker has been told.
async function turnGone(ruleId: string, source: string) {
  gone.replyWith(410);
  const first = await ingest(source);
  await pipeline.waitForStatus(first, 'failed');
  await waitFor(() => heard.includes(ruleId), 10_000, 'the rule change on Redis');
  expect((await healthOf(ruleId)).status).toBe('unhealthy');
  return first;
}

describe('recovering from a 410', () => {
  beforeEach(() => gone.replyWith(200));

  it('a burst right after a 410: every event waits as paused, none goes to the gone target', async () => {
    const ruleId = await createRule('burst');
    await warmBothWorkers('burst');
    const warmed = requestsTo(gone, 'burst').length;
    await turnGone(ruleId, 'burst');

    const burst = await Promise.all(Array.from({ length: 20 }, () => ingest('burst')));
    for (const id of burst) expect(await pipeline.waitForStatus(id, 'paused')).toMatchObject({ attemptCount: 0 });
    // The gone target saw only the attempt that turned the rule.
    expect(requestsTo(gone, 'burst').length).toBe(warmed + 1);

    // The transition's entry counts what it paused (nothing was queued then); each later pause has its own.
    const unhealthy = await pipeline.store.prisma.auditEntry.findMany({
      where: { action: 'rule.unhealthy', resourceId: ruleId },
    });
    expect(unhealthy.map((e) => e.metadata)).toEqual([expect.objectContaining({ reason: 'gone', paused_events: 0 })]);
    const paused = await pipeline.store.prisma.auditEntry.findMany({
      where: { action: 'rule.event_paused', resourceId: ruleId },
    });
    expect(paused.map((e) => (e.metadata as { event_id: string }).event_id).sort()).toEqual([...burst].sort());
  });

  it('resume after a target change: the paused events go to the new target and the rule stays healthy', async () => {
    const ruleId = await createRule('moved');
    await warmBothWorkers('moved');
    const warmed = requestsTo(gone, 'moved').length;
    const first = await turnGone(ruleId, 'moved');
    const later = [await ingest('moved'), await ingest('moved')];
    for (const id of later) await pipeline.waitForStatus(id, 'paused');

    // The admin fixes the target, then resumes; the old target still answers 410.
    await pipeline.http
      .patch(`/rules/${ruleId}`)
      .set('authorization', admin)
      .send({ target_url: `${fixed.url}/moved` })
      .expect(200);
    const resumed = await pipeline.http.post(`/rules/${ruleId}/resume`).set('authorization', admin).expect(200);
    expect(resumed.body).toMatchObject({ resumed_events: 2 });

    for (const id of later) {
      await pipeline.waitForStatus(id, 'delivered');
      expect((await pipeline.attemptsOf(id)).map((a) => a.targetUrl)).toEqual([`${fixed.url}/moved`]);
    }
    expect(requestsTo(fixed, 'moved')).toHaveLength(2);
    expect(requestsTo(gone, 'moved')).toHaveLength(warmed + 1);
    expect((await healthOf(ruleId)).status).toBe('healthy');
    // The event that got the 410 failed for good and keeps its target (it is no longer the rule's to move).
    expect((await pipeline.eventById(first))?.targetUrl).toBe(`${gone.url}/moved`);
  });
});
