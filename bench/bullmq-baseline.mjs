// Baseline: one BullMQ worker process draining jobs with a no-op processor.
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';

const { REDIS_URL, QUEUE_PREFIX, JOBS, CONCURRENCY } = process.env;
const expected = Number(JOBS);
let done = 0;
let started;
const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
const worker = new Worker('noop', async () => {}, {
  connection,
  prefix: QUEUE_PREFIX,
  concurrency: Number(CONCURRENCY),
  autorun: false,
});
worker.on('completed', () => {
  done++;
  if (done === expected) {
    process.send({ type: 'done', ms: performance.now() - started });
    void worker.close().then(() => process.exit(0));
  }
});
process.on('message', (msg) => {
  if (msg.type === 'start') {
    started = performance.now();
    void worker.run();
  }
});
process.send({ type: 'ready' });
