import { createRedisConnection, JOBS, MAINTENANCE_JOBS, maintenanceQueuePrefix, QUEUES } from '@relay/queue';
import { TEST_REDIS_URL, uniqueQueuePrefix, waitFor } from '@relay/test-support';
import { Queue, type Job } from 'bullmq';
import { pino } from 'pino';
import { startMaintenanceWorker, type MaintenanceHandlers } from './maintenance-worker';

// The maintenance queue's one worker over real Redis and BullMQ: each job name reaches its own handler,
// and a name without one is refused (failed at once, logged), never run by some other handler.
describe('the maintenance worker', () => {
  const prefix = uniqueQueuePrefix();
  const producer = createRedisConnection(TEST_REDIS_URL, 'producer');
  const connection = createRedisConnection(TEST_REDIS_URL, 'worker');
  const queue = new Queue(QUEUES.maintenance, { connection: producer, prefix: maintenanceQueuePrefix(prefix) });
  const logged: { level: number; job?: string; msg: string }[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void logged.push(JSON.parse(line)) });
  const ran: string[] = [];
  const handler = (name: string) => async (job: Job) => void ran.push(`${name}:${job.id}`);
  const handlers: MaintenanceHandlers = {
    [JOBS.retention]: handler('retention'),
    [JOBS.notice]: handler('notice'),
    [JOBS.failureDigest]: handler('digest'),
    [JOBS.partitions]: handler('partitions'),
  };
  const worker = startMaintenanceWorker({
    connection,
    prefix,
    handlers,
    logger,
    lockDurationMs: 30_000,
    stalledIntervalMs: 30_000,
  });

  afterAll(async () => {
    await worker.close();
    await queue.obliterate({ force: true });
    await queue.close();
    connection.disconnect();
    producer.disconnect();
  });

  it('runs each job of the catalog with its own handler', async () => {
    for (const name of MAINTENANCE_JOBS) await queue.add(name, {}, { jobId: `job-${name}` });
    await waitFor(() => ran.length === MAINTENANCE_JOBS.length, 15_000, 'every maintenance job');
    expect(ran.sort()).toEqual([
      'digest:job-failure_digest',
      'notice:job-notice',
      'partitions:job-partitions',
      'retention:job-retention',
    ]);
  });

  it('refuses a job of an unknown name: failed without a retry, logged, no handler run', async () => {
    ran.length = 0;
    await queue.add('purge_everything', {}, { jobId: 'stray', attempts: 3 });
    await waitFor(async () => (await queue.getJobState('stray')) === 'failed', 15_000, 'the stray job to fail');
    const job = await queue.getJob('stray');
    expect(job?.failedReason).toBe('unknown maintenance job: purge_everything');
    expect(job?.attemptsMade).toBe(1);
    expect(ran).toEqual([]);
    expect(logged).toContainEqual(
      expect.objectContaining({ level: 50, job: 'purge_everything', msg: 'maintenance job of unknown name refused' }),
    );
  });
});
