import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { DEFAULT_ORGANIZATION_ID } from '@relay/core';
import { JOBS, maintenanceQueuePrefix, QUEUES } from '@relay/queue';
import { seedEvents, startTargetServer, waitFor, type TargetServer } from '@relay/test-support';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { REDIS_URL, startPipeline, userCredential, type Pipeline } from './harness';

const DAY = 86_400_000;
const ORG = DEFAULT_ORGANIZATION_ID;
const ROOT = path.resolve(__dirname, '../..');
// A schedule that never fires during a test (1 January): runs are started by the tests themselves.
const NEVER = '0 0 1 1 *';
const daysAgo = (days: number) => new Date(Date.now() - days * DAY);

const countEvents = async (pipeline: Pipeline, ids: string[]) =>
  (
    await pipeline.store.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE id = ANY($1::uuid[])', [
      ids,
    ])
  ).rows[0]!.n;

describe('retention', () => {
  let pipeline: Pipeline;
  let target: TargetServer;

  beforeAll(async () => {
    target = await startTargetServer();
    pipeline = await startPipeline({
      api: { DEFAULT_TARGET_URL: `${target.url}/hook` },
      worker: { RETENTION_DAYS: '30', RETENTION_FAILED_MAX_DAYS: '90', RETENTION_SCHEDULE: NEVER },
    });
  });
  afterAll(async () => {
    await pipeline.close();
    await target.close();
  });
  beforeEach(() => target.replyWith(200));

  it('deletes delivered events and acknowledged failures past retention, keeps queued events and unacknowledged failures (injected clock)', async () => {
    const admin = (await userCredential(pipeline, 'admin')).authorization;
    const ingest = async (source: string) =>
      (await pipeline.http.post(`/${source}`).send({ n: 1 }).expect(202)).body.id as string;
    const delivered = await ingest('fine');
    await pipeline.waitForStatus(delivered, 'delivered');
    target.replyWith(400);
    const acknowledged = await ingest('broken');
    const unacknowledged = await ingest('broken');
    await pipeline.waitForStatus(acknowledged, 'failed');
    await pipeline.waitForStatus(unacknowledged, 'failed');
    await pipeline.http.post(`/events/${acknowledged}/ack`).set('authorization', admin).expect(200);
    // A queued event whose last change is long past (its target is down, say): never deleted.
    const [queued] = await seedEvents(pipeline.store.pool, {
      organizationId: ORG,
      count: 1,
      status: 'queued',
      changedAt: daysAgo(400),
    });
    await pipeline.worker!.indexSearchNow();

    // Today nothing is old.
    expect(await pipeline.worker!.retentionNow()).toMatchObject({ events: 0 });
    // 31 days on: past the retention, not past the failures' hard maximum.
    const later = await pipeline.worker!.retentionNow(new Date(Date.now() + 31 * DAY));
    expect(later).toMatchObject({ events: 2, complete: true });
    expect(later.attempts).toBeGreaterThanOrEqual(2);
    expect(await countEvents(pipeline, [delivered, acknowledged])).toBe(0);
    expect(await countEvents(pipeline, [unacknowledged, queued!])).toBe(2);
    // Its attempts and search rows went with it; the event list no longer shows it.
    expect(await pipeline.attemptsOf(delivered)).toEqual([]);
    await pipeline.http.get(`/events/${delivered}`).set('authorization', admin).expect(404);
    // 91 days on the unacknowledged failure goes too; the queued event stays.
    expect(await pipeline.worker!.retentionNow(new Date(Date.now() + 91 * DAY))).toMatchObject({ events: 1 });
    expect(await countEvents(pipeline, [unacknowledged, queued!])).toBe(1);
  });

  it('retention deletes only what is old, in batches, while ingest continues, and keeps unacknowledged failures', async () => {
    const worker = pipeline.startWorker({
      RETENTION_DAYS: '30',
      RETENTION_BATCH_SIZE: '100',
      RETENTION_SCHEDULE: NEVER,
    });
    const old = await seedEvents(pipeline.store.pool, {
      organizationId: ORG,
      count: 2_000,
      status: 'delivered',
      changedAt: daysAgo(45),
      attempts: 1,
      search: 'indexed',
      body: JSON.stringify({ payload: 'x'.repeat(1_200) }),
    });
    const kept = [
      ...(await seedEvents(pipeline.store.pool, {
        organizationId: ORG,
        count: 50,
        status: 'failed',
        changedAt: daysAgo(45),
      })),
      ...(await seedEvents(pipeline.store.pool, {
        organizationId: ORG,
        count: 50,
        status: 'queued',
        changedAt: daysAgo(45),
      })),
      ...(await seedEvents(pipeline.store.pool, {
        organizationId: ORG,
        count: 50,
        status: 'delivered',
        changedAt: daysAgo(29),
      })),
    ];
    let done = false;
    const running = worker.retentionNow().finally(() => (done = true));
    // Webhooks keep arriving, 20 at a time, for as long as the run lasts (at least one round during it).
    const ingested: string[] = [];
    let round = 0;
    do {
      const replies = await Promise.all(
        Array.from({ length: 20 }, (_, i) => pipeline.http.post('/during').send({ round, i }).expect(202)),
      );
      ingested.push(...replies.map((r) => r.body.id as string));
      round++;
    } while (!done);
    const totals = await running;
    expect(totals).toMatchObject({ events: 2_000, attempts: 2_000, complete: true });
    // Their search keys and chunks went with them (the cascade and the trigger on events).
    const { rows: index } = await pipeline.store.pool.query<{ keys: number; chunks: number }>(
      `SELECT (SELECT count(*)::int FROM event_search_keys WHERE event_id = ANY($1::uuid[])) AS keys,
         (SELECT count(*)::int FROM event_search_chunks WHERE event_ids && $1::uuid[]) AS chunks`,
      [old],
    );
    expect(index).toEqual([{ keys: 0, chunks: 0 }]);
    expect(totals.batches).toBeGreaterThanOrEqual(20);
    expect(await countEvents(pipeline, old)).toBe(0);
    expect(await countEvents(pipeline, kept)).toBe(kept.length);
    // Everything ingested meanwhile is stored and delivered, untouched.
    expect(await countEvents(pipeline, ingested)).toBe(ingested.length);
    await waitFor(
      async () => {
        const { rows } = await pipeline.store.pool.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM events WHERE id = ANY($1::uuid[]) AND status = 'delivered'",
          [ingested],
        );
        return rows[0]!.n === ingested.length ? true : undefined;
      },
      60_000,
      'the events ingested during retention to be delivered',
    );
    // Seeding 2,000 events and deleting them while ingest runs took 4 s alone, 10 s beside three busy loops and over
    // 30 s (jest's default then) in CI beside the other suites: a bound a busy machine meets, not a speed check.
  }, 180_000);

  it('prints what a run would delete, per organization, without deleting (the dry-run command)', async () => {
    const ids = await seedEvents(pipeline.store.pool, {
      organizationId: ORG,
      count: 3,
      status: 'delivered',
      changedAt: daysAgo(40),
      attempts: 2,
    });
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'apps/delivery-worker/src/cli/main.ts', 'retention', 'dry-run', '--json'],
      { cwd: ROOT, env: { ...process.env, DATABASE_URL: pipeline.db.url, RETENTION_DAYS: '30' } },
    );
    const report = JSON.parse(stdout) as { rows: { organization: string; days: number; events: number }[] };
    expect(report.rows).toContainEqual({ organization: 'default', days: 30, events: 3, attempts: 6, auditEntries: 0 });
    expect(await countEvents(pipeline, ids)).toBe(3);

    const text = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'apps/delivery-worker/src/cli/main.ts', 'retention', 'dry-run'],
      { cwd: ROOT, env: { ...process.env, DATABASE_URL: pipeline.db.url } },
    );
    // Without the setting nothing would be deleted.
    expect(text.stdout).toMatch(/^default\s+off\s+0\s+0\s+0$/m);
  });
});

describe('retention schedule', () => {
  let pipeline: Pipeline;
  let redis: Redis;

  beforeAll(async () => {
    // Every second, so the test sees a scheduled run; both workers register the same scheduler.
    pipeline = await startPipeline({ worker: { RETENTION_DAYS: '30', RETENTION_SCHEDULE: '* * * * * *' } });
    pipeline.startWorker();
    redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  });
  afterAll(async () => {
    redis.disconnect();
    await pipeline.close();
  });

  it('is registered once even with two workers, and its runs delete old events', async () => {
    const queue = new Queue(QUEUES.maintenance, { connection: redis, prefix: maintenanceQueuePrefix(pipeline.prefix) });
    try {
      // The maintenance queue also holds the failure digest's schedule (notifications).
      const retentionSchedulers = async () =>
        (await queue.getJobSchedulers()).filter((scheduler) => scheduler.key === 'retention');
      const schedulers = await waitFor(
        async () => {
          const found = await retentionSchedulers();
          return found.length > 0 ? found : undefined;
        },
        10_000,
        'the retention scheduler',
      );
      expect(schedulers).toHaveLength(1);
      expect(schedulers[0]).toMatchObject({ key: 'retention', pattern: '* * * * * *' });
      // One upcoming job for the next slot, not one per worker.
      const upcoming = await queue.getJobs(['delayed', 'waiting', 'prioritized']);
      expect(upcoming.filter((job) => job.name === JOBS.retention).length).toBeLessThanOrEqual(1);

      const old = await seedEvents(pipeline.store.pool, {
        organizationId: ORG,
        count: 5,
        status: 'delivered',
        changedAt: daysAgo(31),
      });
      await waitFor(async () => ((await countEvents(pipeline, old)) === 0 ? true : undefined), 10_000, 'a run');
      expect(await retentionSchedulers()).toHaveLength(1);
    } finally {
      await queue.close();
    }
  });
});
