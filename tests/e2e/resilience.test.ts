import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { ownRedis, sleep, startTargetServer, waitFor, type OwnRedis, type TargetServer } from '@relay/test-support';
import { FAST_WORKER_ENV, startPipeline, type Pipeline } from './harness';

const ROOT = path.resolve(__dirname, '../..');

async function ingestMany(pipeline: Pipeline, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const res = await pipeline.http
      .post('/src')
      .set('content-type', 'application/json')
      .send(JSON.stringify({ i }))
      .expect(202);
    ids.push(res.body.id);
  }
  return ids;
}

describe('nothing is lost between Postgres and Redis', () => {
  let redis: OwnRedis;
  let target: TargetServer;
  let pipeline: Pipeline | undefined;
  beforeEach(async () => {
    redis = await ownRedis();
    target = await startTargetServer();
  });
  afterEach(async () => {
    await pipeline?.close();
    pipeline = undefined;
    await redis.stop();
    await target.close();
  });

  it('answers 202 while Redis is down and delivers once Redis is back', async () => {
    pipeline = await startPipeline({ redisUrl: redis.url, api: { DEFAULT_TARGET_URL: target.url }, worker: false });
    const ids = await ingestMany(pipeline, 3);
    for (const id of ids) expect((await pipeline.eventById(id))?.status).toBe('queued');
    await redis.start();
    pipeline.startWorker();
    for (const id of ids) await pipeline.waitForStatus(id, 'delivered', 15_000);
    expect(target.requests).toHaveLength(3);
  });

  it('delivers every queued event after Redis restarts empty, keeping retry times', async () => {
    await redis.start();
    pipeline = await startPipeline({
      redisUrl: redis.url,
      api: { DEFAULT_TARGET_URL: target.url },
      worker: {
        DELIVERY_BACKOFF_BASE_MS: '1500',
        DELIVERY_BACKOFF_MAX_MS: '1500',
        DELIVERY_MAX_ATTEMPTS: '5',
        SWEEP_GRACE_MS: '600000',
      },
    });
    target.replyWith(500);
    const ids = await ingestMany(pipeline, 4);
    // Each event has failed once and waits for its retry in a delayed job...
    await waitFor(
      async () => (await pipeline!.store.prisma.event.count({ where: { attemptCount: 1 } })) === 4,
      10_000,
      'first attempts',
    );
    // ...when Redis dies and comes back with nothing in it. The grace period is long, so only the
    // empty-Redis detection (not the overdue sweep) can bring these events back in time.
    await redis.stop();
    await redis.start();
    target.replyWith(200);
    for (const id of ids) await pipeline.waitForStatus(id, 'delivered', 20_000);
    for (const id of ids) {
      const attempts = await pipeline.attemptsOf(id);
      expect(attempts.map((a) => a.responseStatus)).toEqual([500, 200]);
      // The retry still waited for the time the policy gave it (≥ 750 ms: half the jittered step).
      expect(attempts[1]!.startedAt.getTime() - attempts[0]!.startedAt.getTime()).toBeGreaterThanOrEqual(700);
    }
  });
});

describe('a worker killed mid-delivery', () => {
  let target: TargetServer;
  let pipeline: Pipeline;
  let child: ChildProcess | undefined;
  beforeAll(async () => {
    target = await startTargetServer();
    pipeline = await startPipeline({ api: { DEFAULT_TARGET_URL: target.url }, worker: false });
  });
  afterAll(async () => {
    child?.kill('SIGKILL');
    await pipeline.close();
    await target.close();
  });

  it('leaves the event to another worker, which delivers it', async () => {
    target.replyWith('hang', 200);
    child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'apps/delivery-worker/src/main.ts')], {
      cwd: ROOT,
      env: {
        ...process.env,
        ...pipeline.baseEnv,
        ...FAST_WORKER_ENV,
        DELIVERY_TIMEOUT_MS: '60000',
        WORKER_HEALTH_PORT: '0',
      },
      stdio: 'ignore',
    });
    const [id] = await ingestMany(pipeline, 1);
    await target.waitForRequests(1, 20_000);
    child.kill('SIGKILL');
    await new Promise((resolve) => child!.once('exit', resolve));
    await sleep(100);
    expect((await pipeline.eventById(id!))?.status).toBe('queued');
    pipeline.startWorker();
    const event = await pipeline.waitForStatus(id!, 'delivered', 20_000);
    expect(event.status).toBe('delivered');
    expect(target.requests.length).toBeGreaterThanOrEqual(2);
  });
});
