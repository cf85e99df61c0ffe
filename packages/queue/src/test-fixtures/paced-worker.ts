import { Worker } from 'bullmq';
import { createPacingLimiter } from '../pacing-limiter';
import type { PacingSettings } from '../pacing-types';
import { createRedisConnection } from '../redis-connection';

// One worker process of pacing-processes.test.ts: a BullMQ worker whose processor paces each job on one key
// (pacedOrDelay) and reports, one JSON line on stdout each, its grants (Redis time) and its paced waits.

const env = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};

const emit = (line: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(line)}\n`);

async function main() {
  const url = env('REDIS_URL');
  const prefix = env('PREFIX');
  const key = env('PACING_KEY');
  const pacing = JSON.parse(env('PACING')) as PacingSettings;
  const limiter = createPacingLimiter({
    redis: createRedisConnection(url, 'worker'),
    subscriber: createRedisConnection(url, 'subscriber'),
    prefix,
    onWait: (_key, reason) => emit({ type: 'wait', reason }),
  });
  await limiter.start();
  const worker = new Worker(
    env('QUEUE'),
    async (job, token) => {
      const grant = await limiter.pacedOrDelay(job, token, key, pacing);
      emit({
        type: 'granted',
        jobId: job.id,
        atMs: grant.grantedAtMs,
        attemptsMade: job.attemptsMade,
        pid: process.pid,
      });
      await limiter.release(grant.lease);
    },
    { connection: createRedisConnection(url, 'worker'), prefix, concurrency: 10 },
  );
  worker.on('error', () => {});
  await worker.waitUntilReady();
  emit({ type: 'ready', pid: process.pid });
  process.once('SIGTERM', () => void worker.close().finally(() => process.exit(0)));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
