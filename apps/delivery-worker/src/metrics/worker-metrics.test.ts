import { TEST_REDIS_URL, uniqueQueuePrefix } from '@relay/test-support';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { createWorkerMetrics, statusClassOf } from './worker-metrics';

const pool = { totalCount: 3, idleCount: 2, waitingCount: 1 };
let redis: Redis;
let queue: Queue;

beforeAll(() => {
  redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
  queue = new Queue('deliveries', { connection: redis, prefix: uniqueQueuePrefix() });
});
afterAll(async () => {
  await queue.obliterate({ force: true });
  await queue.close();
  redis.disconnect();
});

const sample = async (metrics: ReturnType<typeof createWorkerMetrics>, name: string, labels: string) => {
  const line = (await metrics.registry.metrics()).split('\n').find((l) => l.startsWith(`${name}${labels} `));
  return line === undefined ? undefined : Number(line.split(' ').pop());
};

describe('worker metrics', () => {
  it('reads queue depth per state and the age of the oldest waiting job from Redis at scrape time', async () => {
    let now = Date.now();
    const metrics = createWorkerMetrics({
      organizationLabels: false,
      pool,
      queues: () => [queue],
      defaultMetrics: false,
      now: () => now,
    });
    expect(await sample(metrics, 'relay_queue_oldest_waiting_seconds', '{queue="deliveries"}')).toBe(0);
    await queue.add('deliver', { n: 1 });
    await queue.add('deliver', { n: 2 });
    await queue.add('deliver', { n: 3 }, { delay: 60_000 });
    const oldest = (await queue.getWaiting(0, -1)).map((job) => job.timestamp).sort()[0]!;
    now = oldest + 42_000;
    expect(await sample(metrics, 'relay_queue_jobs', '{queue="deliveries",state="waiting"}')).toBe(2);
    expect(await sample(metrics, 'relay_queue_jobs', '{queue="deliveries",state="delayed"}')).toBe(1);
    expect(await sample(metrics, 'relay_queue_jobs', '{queue="deliveries",state="active"}')).toBe(0);
    expect(await sample(metrics, 'relay_queue_oldest_waiting_seconds', '{queue="deliveries"}')).toBe(42);
    expect(await sample(metrics, 'relay_db_pool_connections', '{state="waiting"}')).toBe(1);
  });

  it('leaves a queue out of a scrape when Redis cannot answer, instead of failing the scrape', async () => {
    const broken = {
      name: 'hooks',
      getJobCounts: () => Promise.reject(new Error('Connection is closed.')),
      getWaiting: () => Promise.reject(new Error('Connection is closed.')),
    };
    const metrics = createWorkerMetrics({
      organizationLabels: false,
      pool,
      queues: () => [broken],
      defaultMetrics: false,
    });
    const text = await metrics.registry.metrics();
    expect(text).toContain('# TYPE relay_queue_jobs gauge');
    expect(text).not.toContain('relay_queue_jobs{');
  });

  it('counts deliveries by kind, outcome and status class, with the organization only when asked', async () => {
    const plain = createWorkerMetrics({ organizationLabels: false, pool, queues: () => [], defaultMetrics: false });
    plain.delivery.delivery('org-1', 'delivered', '2xx', 12, 'primary');
    plain.delivery.delivery('org-2', 'delivered', '2xx', 8, 'primary');
    plain.delivery.delivery('org-1', 'failed', 'none', null, 'primary');
    plain.delivery.delivery('org-1', 'delivered', '2xx', 20, 'destination');
    plain.delivery.deliveredAfter(1_500, 'destination');
    const primary = (labels: string) => `{delivery="primary",${labels}}`;
    expect(await sample(plain, 'relay_deliveries_total', primary('outcome="delivered",status_class="2xx"'))).toBe(2);
    expect(await sample(plain, 'relay_deliveries_total', primary('outcome="failed",status_class="none"'))).toBe(1);
    const destination = '{delivery="destination",outcome="delivered",status_class="2xx"}';
    expect(await sample(plain, 'relay_deliveries_total', destination)).toBe(1);
    // No request went out for the failed one: two attempt durations to the primary, one to a destination.
    expect(await sample(plain, 'relay_attempt_duration_seconds_count', '{delivery="primary"}')).toBe(2);
    expect(await sample(plain, 'relay_attempt_duration_seconds_count', '{delivery="destination"}')).toBe(1);
    expect(await sample(plain, 'relay_delivery_latency_seconds_count', '{delivery="destination"}')).toBe(1);
    expect(await sample(plain, 'relay_delivery_latency_seconds_count', '{delivery="primary"}')).toBe(0);
    expect(await plain.registry.metrics()).not.toContain('organization=');

    const labelled = createWorkerMetrics({ organizationLabels: true, pool, queues: () => [], defaultMetrics: false });
    labelled.delivery.delivery('org-1', 'retry', '5xx', 3, 'destination');
    const labels = '{delivery="destination",outcome="retry",status_class="5xx",organization="org-1"}';
    expect(await sample(labelled, 'relay_deliveries_total', labels)).toBe(1);
  });

  it('counts hook outcomes, sweeps and retention in the shape the retention job takes', async () => {
    const metrics = createWorkerMetrics({ organizationLabels: false, pool, queues: () => [], defaultMetrics: false });
    metrics.hookRun('retry_scheduled');
    metrics.swept({ full: false, enqueued: 3 });
    metrics.swept({ full: true, enqueued: 5 });
    metrics.swept({ full: false, enqueued: 0 });
    metrics.retention.deleted('events', 7);
    metrics.retention.run('ok');
    expect(await sample(metrics, 'relay_hook_runs_total', '{outcome="retry"}')).toBe(1);
    expect(await sample(metrics, 'relay_hook_runs_total', '{outcome="failed"}')).toBe(0);
    expect(await sample(metrics, 'relay_sweeper_reenqueued_total', '{reason="overdue"}')).toBe(3);
    expect(await sample(metrics, 'relay_sweeper_reenqueued_total', '{reason="redis_reset"}')).toBe(5);
    expect(await sample(metrics, 'relay_retention_deleted_total', '{table="events"}')).toBe(7);
    expect(await sample(metrics, 'relay_retention_runs_total', '{outcome="ok"}')).toBe(1);
    expect(await sample(metrics, 'relay_retention_runs_total', '{outcome="failed"}')).toBe(0);
  });

  it('classes attempt outcomes', () => {
    expect(statusClassOf({ kind: 'response', status: 204 })).toBe('2xx');
    expect(statusClassOf({ kind: 'response', status: 301 })).toBe('3xx');
    expect(statusClassOf({ kind: 'response', status: 429 })).toBe('4xx');
    expect(statusClassOf({ kind: 'response', status: 503 })).toBe('5xx');
    expect(statusClassOf({ kind: 'network', code: 'ECONNREFUSED', message: 'refused' })).toBe('network');
    expect(statusClassOf({ kind: 'blocked', message: 'private' })).toBe('none');
    expect(statusClassOf(null)).toBe('none');
  });
});
