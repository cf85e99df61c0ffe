import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { TEST_REDIS_URL, uniqueQueuePrefix, waitFor } from '@relay/test-support';
import { Queue } from 'bullmq';
import { createPacingLimiter } from './pacing-limiter';
import { createRedisConnection } from './redis-connection';

// Pacing shared by separate worker processes: two child processes, each a BullMQ worker (concurrency 10) whose
// processor paces every job with pacedOrDelay on the same key, over the real Redis. Each job allows ONE attempt:
// a paced wait that counted one would fail the job instead of completing it.

const ROOT = path.resolve(__dirname, '../../..');
const FIXTURE = path.join(__dirname, 'test-fixtures/paced-worker.ts');

interface Line {
  type: 'ready' | 'granted' | 'wait';
  pid?: number;
  jobId?: string;
  atMs?: number;
  attemptsMade?: number;
  reason?: string;
}

describe('pacing across two worker processes', () => {
  const prefix = uniqueQueuePrefix();
  const queueName = 'paced';
  const connection = createRedisConnection(TEST_REDIS_URL, 'producer');
  const queue = new Queue(queueName, { connection, prefix });
  const children: ChildProcess[] = [];
  const lines: Line[] = [];
  const errors: string[] = [];

  function startWorker(pacing: unknown) {
    const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE], {
      cwd: ROOT,
      env: {
        ...process.env,
        REDIS_URL: TEST_REDIS_URL,
        PREFIX: prefix,
        QUEUE: queueName,
        PACING_KEY: 'destination:five-per-second',
        PACING: JSON.stringify(pacing),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let buffered = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const parts = buffered.split('\n');
      buffered = parts.pop()!;
      for (const part of parts) if (part.trim()) lines.push(JSON.parse(part) as Line);
    });
    child.stderr.on('data', (chunk: Buffer) => void errors.push(chunk.toString()));
    children.push(child);
  }

  afterAll(async () => {
    await Promise.all(
      children.map(
        (child) =>
          new Promise((resolve) => {
            if (child.exitCode !== null) return resolve(undefined);
            child.once('exit', resolve);
            child.kill('SIGTERM');
          }),
      ),
    );
    await queue.obliterate({ force: true });
    await queue.close();
    connection.disconnect();
  });

  it('grants 50 jobs at 5/s with burst 5: at most 10 in any second (Redis time), one attempt each', async () => {
    const pacing = { rateLimit: { limit: 5, period: 'second', burst: 5 } };
    startWorker(pacing);
    startWorker(pacing);
    await waitFor(
      () => lines.filter((line) => line.type === 'ready').length === 2,
      60_000,
      `both workers ready (${errors.join('')})`,
    );
    await queue.addBulk(
      Array.from({ length: 50 }, (_, i) => ({
        name: 'deliver',
        data: {},
        opts: { jobId: `job-${i}`, attempts: 1, removeOnComplete: false, removeOnFail: false },
      })),
    );
    // pacedOrDelay gives the job id as the waiter: the jobs waiting their turn are counted, then none is.
    const reader = createPacingLimiter({ redis: connection, prefix });
    let mostWaiting = 0;
    await waitFor(
      async () => {
        mostWaiting = Math.max(mostWaiting, (await reader.state('destination:five-per-second')).waiting);
        return (await queue.getJobCounts('completed')).completed === 50;
      },
      60_000,
      'every job to complete',
    );
    // A child prints a grant before it completes the job, but its pipe may bring the line after Redis has the
    // completion (one run saw 49 of 50 lines here).
    await waitFor(
      () => lines.filter((line) => line.type === 'granted').length >= 50,
      30_000,
      'every grant line from the children',
    );

    const grants = lines.filter((line) => line.type === 'granted');
    expect(new Set(grants.map((grant) => grant.jobId)).size).toBe(50);
    expect(grants).toHaveLength(50);
    // Both processes took part, so the limit held across them, not only within one.
    expect(new Set(grants.map((grant) => grant.pid)).size).toBe(2);
    // Jobs waited as delayed jobs, and no wait counted an attempt: none failed, each completed at its first.
    expect(lines.filter((line) => line.type === 'wait').length).toBeGreaterThan(0);
    expect((await queue.getJobCounts('failed')).failed).toBe(0);
    expect(mostWaiting).toBeGreaterThan(10);
    expect((await reader.state('destination:five-per-second')).waiting).toBe(0);
    for (const grant of grants) expect(grant.attemptsMade).toBe(0);
    const jobs = await queue.getJobs(['completed']);
    expect(jobs.map((job) => job.attemptsMade)).toEqual(Array(50).fill(1));

    const times = grants.map((grant) => grant.atMs!).sort((a, b) => a - b);
    let busiest = 0;
    for (let i = 0; i < times.length; i++) {
      let j = i;
      while (j < times.length && times[j]! < times[i]! + 1_000) j++;
      busiest = Math.max(busiest, j - i);
    }
    expect(busiest).toBeLessThanOrEqual(10);
    // 5 at once, then one every 200 ms: the last of 50 no sooner than 9 s after the first.
    expect(times.at(-1)! - times[0]!).toBeGreaterThanOrEqual(9_000 - 1);
    // At least 9 s by design, and its waits allow up to 150 s on a busy machine: more than jest's 120 s bound.
  }, 180_000);
});
