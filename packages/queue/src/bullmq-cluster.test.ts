import { startRedisCluster, type RedisCluster } from '@relay/test-support';
import { Queue, QueueEvents, Worker } from 'bullmq';
import { Cluster } from 'ioredis';

// Issue 33, item 1, a first check on a real Redis Cluster (3 primaries + 3 replicas): BullMQ works there only when
// the queue's prefix is one hash tag, so that every key of a queue (and of its Lua scripts) is in one slot.

jest.setTimeout(120_000);

let cluster: RedisCluster;
const clients: Cluster[] = [];
const closers: Array<() => Promise<unknown>> = [];

// BullMQ's workers need maxRetriesPerRequest null (blocking commands wait forever).
const connect = () => {
  const client = new Cluster(cluster.nodes, { redisOptions: { maxRetriesPerRequest: null } });
  client.on('error', () => {});
  clients.push(client);
  return client;
};

beforeAll(async () => {
  cluster = await startRedisCluster();
});

afterAll(async () => {
  for (const close of closers.reverse()) await close();
  for (const client of clients) client.disconnect();
  await cluster?.close();
});

it('adds and processes a job under a hash-tagged prefix ({relay:dlv})', async () => {
  const prefix = '{relay:dlv}';
  const queue = new Queue('delivery', { connection: connect(), prefix });
  const events = new QueueEvents('delivery', { connection: connect(), prefix });
  closers.push(
    () => queue.close(),
    () => events.close(),
  );
  await events.waitUntilReady();
  const seen: unknown[] = [];
  const worker = new Worker(
    'delivery',
    async (job) => {
      seen.push(job.data);
      return { delivered: job.data.event };
    },
    { connection: connect(), prefix },
  );
  closers.push(() => worker.close());

  const job = await queue.add('deliver', { event: 'evt_1' });
  expect(await job.waitUntilFinished(events, 60_000)).toEqual({ delivered: 'evt_1' });
  expect(seen).toEqual([{ event: 'evt_1' }]);
  // Every key of the queue lives on one primary: the tag decided the slot.
  const keys = await Promise.all(
    (await cluster.primaries()).map(async (node) => {
      const client = clients[0]!.nodes('master').find((n) => n.options.port === node.port);
      return client ? (await client.keys(`${prefix}:*`)).length : 0;
    }),
  );
  expect(keys.filter((count) => count > 0)).toHaveLength(1);
});

it('fails with CROSSSLOT when the prefix has no hash tag (the default QUEUE_PREFIX, relay)', async () => {
  const queue = new Queue('delivery', { connection: connect(), prefix: 'relay' });
  closers.push(() => queue.close());
  await expect(queue.add('deliver', { event: 'evt_2' })).rejects.toThrow(/CROSSSLOT/);
});
