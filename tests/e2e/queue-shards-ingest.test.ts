import { queueShardOf } from '@relay/core';
import { createDeliveryQueue, createRedisConnection } from '@relay/queue';
import { waitFor } from '@relay/test-support';
import { REDIS_URL, startPipeline, userCredential, type Pipeline } from './harness';

// Issue 33 item 2: an event's delivery job is on its rule's queue shard from ingest on. The insert chooses the rule
// (the caller names only the source), and ingest once enqueued as if there were none: the job went to shard 0 while
// the sweeper, which reads the rule from Postgres, gave a queued event a second job on the rule's shard, and the
// event was delivered twice (154 of 500 in the transform runaway test on three shards, more through failovers).

const SHARDS = 3;
let pipeline: Pipeline;
let admin: string;
const redis = createRedisConnection(REDIS_URL, 'producer');
const queue = () => createDeliveryQueue({ connection: redis, prefix: pipeline.prefix, shards: SHARDS });

beforeAll(async () => {
  pipeline = await startPipeline({ api: { REDIS_QUEUE_SHARDS: String(SHARDS) }, worker: false });
  admin = (await userCredential(pipeline, 'admin')).authorization;
});
afterAll(async () => {
  await pipeline.close();
  redis.disconnect();
});

/** A rule whose shard is not shard 0 (where a job without a rule goes), with `options`. */
async function ruleOffShardZero(name: string, options: object = {}): Promise<{ id: string; shard: number }> {
  for (let i = 0; ; i++) {
    const rule = await pipeline.http
      .post('/rules')
      .set('authorization', admin)
      .send({ source: `${name}-${i}`, target_url: `https://example.com/${name}`, ...options })
      .expect(201);
    const shard = queueShardOf(rule.body.id as string, SHARDS);
    if (shard !== 0) return { id: rule.body.id as string, shard };
    await pipeline.http.delete(`/rules/${rule.body.id}`).set('authorization', admin).expect(204);
  }
}

async function jobShardsOf(eventId: string): Promise<number[]> {
  const found = await Promise.all(queue().queues.map((q) => q.getJob(eventId)));
  return found.flatMap((job, shard) => (job ? [shard] : []));
}

it("enqueues a webhook's delivery on the shard of the rule the insert chose", async () => {
  const rule = await ruleOffShardZero('plain');
  const source = (await pipeline.http.get(`/rules/${rule.id}`).set('authorization', admin).expect(200)).body.source;
  const { id } = (await pipeline.http.post(`/${source}`).set('content-type', 'application/json').send('{}').expect(202))
    .body;
  await waitFor(async () => ((await jobShardsOf(id)).length > 0 ? true : undefined), 60_000, 'the job');
  expect(await jobShardsOf(id)).toEqual([rule.shard]);
});

it('does so for a webhook stored through its rule’s deduplication key too', async () => {
  const rule = await ruleOffShardZero('dedup', { dedup: { header: 'x-id' } });
  const source = (await pipeline.http.get(`/rules/${rule.id}`).set('authorization', admin).expect(200)).body.source;
  const { id } = (
    await pipeline.http
      .post(`/${source}`)
      .set({ 'content-type': 'application/json', 'x-id': 'once' })
      .send('{}')
      .expect(202)
  ).body;
  await waitFor(async () => ((await jobShardsOf(id)).length > 0 ? true : undefined), 60_000, 'the job');
  expect(await jobShardsOf(id)).toEqual([rule.shard]);
});
