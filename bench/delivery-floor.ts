// The delivery floor: a BullMQ worker with the relay's own sender (guarded lookup, keep-alive
// agents, got) and signing (the relay's delivery headers and signatures), POSTing each job's body
// to the bench target. No database, no retry policy, no feed, no hooks. Bundled by bench/run.mjs
// next to the worker's bundle so both resolve the same packages.
import type { OrgId } from '@relay/core';
import type { StoredEvent } from '@relay/db';
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { createSender } from '../apps/delivery-worker/src/sender';
import { sendSignedRequest } from '../apps/delivery-worker/src/signed-request';

const { REDIS_URL, QUEUE_PREFIX, TARGET_URL, SIGNING_SECRET, FLOOR_BODY } = process.env;
const concurrency = Number(process.env.CONCURRENCY ?? 32);
const targetPolicy = { allowPrivate: true, allowlist: [] };
const sender = createSender({ timeoutMs: 30_000, policy: targetPolicy });
const signing = { secrets: SIGNING_SECRET ? [SIGNING_SECRET] : [], outbound: {} };
const deps = { sender, targetPolicy, secretFor: async () => signing };

interface FloorJob {
  orgId: OrgId;
  eventId: string;
  /** Absent when the ingest floor queued the job (latency floor): FLOOR_BODY is sent instead. */
  body?: string;
}

const connection = new Redis(REDIS_URL!, { maxRetriesPerRequest: null });
const worker = new Worker<FloorJob>(
  'floor-delivery',
  async (job) => {
    const event: StoredEvent = {
      id: job.data.eventId,
      organizationId: job.data.orgId,
      source: 'github',
      ruleId: null,
      targetUrl: TARGET_URL!,
      headers: { 'content-type': 'application/json', 'x-github-event': 'push' },
      path: '',
      query: {},
      body: Buffer.from(job.data.body ?? FLOOR_BODY ?? ''),
      status: 'queued',
      attemptCount: 0,
      nextAttemptAt: null,
      failureReason: null,
      lastError: null,
      createdAt: new Date(),
      deliveredAt: null,
      runStartAttempt: 0,
    };
    const sent = await sendSignedRequest(deps, event, { url: TARGET_URL!, ruleId: null }, Date.now);
    if (sent.outcome.kind !== 'response') throw new Error(`floor delivery failed: ${sent.outcome.kind}`);
  },
  { connection, prefix: QUEUE_PREFIX, concurrency },
);
process.on('SIGTERM', () => {
  void worker.close().then(() => {
    sender.close();
    connection.disconnect();
    process.exit(0);
  });
});
process.send?.({ type: 'ready' });
