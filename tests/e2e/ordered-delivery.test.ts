import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createEventSweepRepository } from '@relay/db';
import { createDeliveryQueue, createRedisConnection } from '@relay/queue';
import { reopenEvents, waitFor } from '@relay/test-support';
import { pino } from 'pino';
import { createSweeper } from '../../apps/delivery-worker/src/sweeper';
import { FAST_WORKER_ENV, REDIS_URL, startPipeline, userCredential, type Pipeline } from './harness';

const silent = pino({ level: 'silent' });

const ROOT = path.resolve(__dirname, '../..');

interface Received {
  key: string;
  seq: number;
  status: number | 'hang';
}

type Decide = (key: string, seq: number, nth: number) => number | 'hang';

// A target that answers by payload ({ key, seq }): `decide` is told how many times this event came.
async function startOrderTarget() {
  const received: Received[] = [];
  const hanging = new Set<http.ServerResponse>();
  let decide: Decide = () => 200;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const { key, seq } = JSON.parse(Buffer.concat(chunks).toString()) as { key: string; seq: number };
      const nth = received.filter((r) => r.key === key && r.seq === seq).length + 1;
      const status = decide(key, seq, nth);
      received.push({ key, seq, status });
      if (status === 'hang') return void hanging.add(res);
      res.writeHead(status).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    received,
    answerWith: (next: Decide) => void (decide = next),
    /** The events of a key the target accepted (2xx), in the order it accepted them. */
    accepted: (key: string) => received.filter((r) => r.key === key && r.status === 200).map((r) => r.seq),
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
type OrderTarget = Awaited<ReturnType<typeof startOrderTarget>>;

async function createRule(pipeline: Pipeline, admin: string, source: string, targetUrl: string, ordering: object) {
  const res = await pipeline.http
    .post('/rules')
    .set('authorization', admin)
    .send({ source, target_url: targetUrl, ordering })
    .expect(201);
  expect(res.body.ordering).toEqual(ordering);
  return res.body.id as string;
}

/** Ingests one webhook at a time (each stored before the next is sent, so ingest order is this order). */
async function ingest(pipeline: Pipeline, source: string, events: { key: string; seq: number }[]) {
  const ids = new Map<string, string>();
  for (const { key, seq } of events) {
    const res = await pipeline.http
      .post(`/${source}`)
      .set('content-type', 'application/json')
      .set('x-key', key)
      .send(JSON.stringify({ key, seq }))
      .expect(202);
    ids.set(`${key}${seq}`, res.body.id as string);
  }
  return ids;
}

const stream = (keys: string[], count: number) =>
  Array.from({ length: count }, (_, seq) => keys.map((key) => ({ key, seq }))).flat();
const inOrder = (count: number) => Array.from({ length: count }, (_, i) => i);

// A long enough run of quick retries that a held head keeps retrying while the test looks at it.
const RETRYING_WORKER = {
  DELIVERY_MAX_ATTEMPTS: '100',
  DELIVERY_BACKOFF_BASE_MS: '50',
  DELIVERY_BACKOFF_MAX_MS: '200',
};

describe('ordered delivery', () => {
  let pipeline: Pipeline;
  let target: OrderTarget;
  let admin: string;
  beforeAll(async () => {
    target = await startOrderTarget();
    pipeline = await startPipeline({ worker: RETRYING_WORKER });
    admin = (await userCredential(pipeline, 'admin')).authorization;
  });
  afterAll(async () => {
    await pipeline.close();
    await target.close();
  });

  it('holds a failing key only, keeps ingest order within each key, and shows the block with its age', async () => {
    const ruleId = await createRule(pipeline, admin, 'orders', target.url, { header: 'x-key' });
    let holdA = true;
    target.answerWith((key, seq) => (key === 'A' && seq === 0 && holdA ? 500 : 200));
    const ids = await ingest(pipeline, 'orders', stream(['A', 'B', 'C'], 5));

    // B and C flow while A's head is failing.
    await waitFor(() => target.accepted('B').length === 5 && target.accepted('C').length === 5, 15_000, 'B and C');
    expect(target.accepted('B')).toEqual(inOrder(5));
    expect(target.accepted('C')).toEqual(inOrder(5));
    expect(target.accepted('A')).toEqual([]);
    // A's later events were never attempted: they wait with no attempt counted.
    for (const seq of [1, 2, 3, 4]) {
      expect(await pipeline.eventById(ids.get(`A${seq}`)!)).toMatchObject({ status: 'queued', attemptCount: 0 });
    }

    const head = ids.get('A0')!;
    const blocked = await pipeline.http.get(`/rules/${ruleId}/ordering`).set('authorization', admin).expect(200);
    expect(blocked.body.blocked_keys).toHaveLength(1);
    const [block] = blocked.body.blocked_keys;
    expect(block).toMatchObject({ key: 'A', event_id: head, status: 'queued', waiting: 4 });
    expect(block.attempts).toBeGreaterThanOrEqual(1);
    const [first] = await pipeline.attemptsOf(head);
    expect(block.blocked_since).toBe(first!.finishedAt.toISOString());

    holdA = false;
    await waitFor(() => target.accepted('A').length === 5, 15_000, 'A delivered');
    expect(target.accepted('A')).toEqual(inOrder(5));
    for (const id of ids.values()) await pipeline.waitForStatus(id, 'delivered');
    // Every event was accepted once; only A's head was attempted more than once.
    expect(target.received.filter((r) => r.status === 200)).toHaveLength(15);
    for (const [name, id] of ids) {
      if (name !== 'A0') expect((await pipeline.eventById(id))?.attemptCount).toBe(1);
    }
    const after = await pipeline.http.get(`/rules/${ruleId}/ordering`).set('authorization', admin).expect(200);
    expect(after.body.blocked_keys).toEqual([]);
    expect(await pipeline.store.prisma.eventOrdering.count()).toBe(0);
  });

  it('frees the waiting events at once when the rule stops ordering, while the old head still fails', async () => {
    const ruleId = await createRule(pipeline, admin, 'unordered', target.url, { header: 'x-key' });
    target.answerWith((key, seq) => (key === 'U' && seq === 0 ? 500 : 200));
    const ids = await ingest(pipeline, 'unordered', stream(['U'], 3));
    await waitFor(async () => ((await pipeline.attemptsOf(ids.get('U0')!)).length >= 2 ? true : undefined));
    expect(target.accepted('U')).toEqual([]);
    await pipeline.http.patch(`/rules/${ruleId}`).set('authorization', admin).send({ ordering: null }).expect(200);
    // Their jobs ended while they waited: the sweeper gives them new ones.
    await pipeline.waitForStatus(ids.get('U1')!, 'delivered');
    await pipeline.waitForStatus(ids.get('U2')!, 'delivered');
    expect(target.accepted('U')).toEqual(expect.arrayContaining([1, 2]));
    expect((await pipeline.eventById(ids.get('U0')!))?.status).toBe('queued');
    target.answerWith(() => 200);
    await pipeline.waitForStatus(ids.get('U0')!, 'delivered');
  });

  it('moves a key on when its head fails finally; the failure stays for attention', async () => {
    await createRule(pipeline, admin, 'final', target.url, { json_pointer: '/key' });
    // 400 is final: no retries.
    target.answerWith((key, seq) => (key === 'F' && seq === 0 ? 400 : 200));
    const ids = await ingest(pipeline, 'final', stream(['F'], 4));
    expect(await pipeline.waitForStatus(ids.get('F0')!, 'failed')).toMatchObject({ attemptCount: 1 });
    await waitFor(() => target.accepted('F').length === 3, 15_000, 'the rest of F');
    expect(target.accepted('F')).toEqual([1, 2, 3]);
  });

  it('gives up on a retrying head when an admin acknowledges it, and the key moves on', async () => {
    const ruleId = await createRule(pipeline, admin, 'acked', target.url, { json_pointer: '/key' });
    target.answerWith((key, seq) => (key === 'K' && seq === 0 ? 503 : 200));
    const ids = await ingest(pipeline, 'acked', stream(['K'], 3));
    const head = ids.get('K0')!;
    await waitFor(async () => ((await pipeline.attemptsOf(head)).length >= 2 ? true : undefined));
    // Behind the head: not acknowledgeable (it never failed), and nothing of it was sent.
    const behind = await pipeline.http
      .post(`/events/${ids.get('K1')}/ack`)
      .set('authorization', admin)
      .expect(409);
    expect(behind.body.code).toBe('event_not_failed');
    const acked = await pipeline.http.post(`/events/${head}/ack`).set('authorization', admin).expect(200);
    expect(acked.body).toMatchObject({ id: head, status: 'failed', failure_reason: 'acknowledged' });
    await waitFor(() => target.accepted('K').length === 2, 15_000, 'the rest of K');
    expect(target.accepted('K')).toEqual([1, 2]);
    const blocked = await pipeline.http.get(`/rules/${ruleId}/ordering`).set('authorization', admin).expect(200);
    expect(blocked.body.blocked_keys).toEqual([]);
    const sentAfter = target.received.filter((r) => r.key === 'K' && r.seq === 0).length;
    await new Promise((resolve) => setTimeout(resolve, 500));
    // Its scheduled retry finds it failed: the head is not sent again.
    expect(target.received.filter((r) => r.key === 'K' && r.seq === 0).length).toBe(sentAfter);
  });

  it('orders a whole source as one key when the option names neither header nor pointer', async () => {
    const ruleId = await createRule(pipeline, admin, 'whole', target.url, {});
    let hold = true;
    target.answerWith((key, seq) => (key === 'W1' && seq === 0 && hold ? 503 : 200));
    // Different x-key headers, yet one order: the source's.
    const ids = await ingest(pipeline, 'whole', [
      { key: 'W1', seq: 0 },
      { key: 'W2', seq: 1 },
      { key: 'W3', seq: 2 },
    ]);
    await waitFor(async () => ((await pipeline.attemptsOf(ids.get('W10')!)).length >= 2 ? true : undefined));
    const blocked = await pipeline.http.get(`/rules/${ruleId}/ordering`).set('authorization', admin).expect(200);
    expect(blocked.body.blocked_keys).toMatchObject([{ key: '', event_id: ids.get('W10'), waiting: 2 }]);
    expect(target.received.filter((r) => r.key === 'W2' || r.key === 'W3')).toEqual([]);
    hold = false;
    for (const id of ids.values()) await pipeline.waitForStatus(id, 'delivered');
    const seqs = target.received.filter((r) => r.key.startsWith('W') && r.status === 200).map((r) => r.seq);
    expect(seqs).toEqual([0, 1, 2]);
  });
});

describe('ordered delivery and the sweeper', () => {
  let pipeline: Pipeline;
  let target: OrderTarget;
  let redis: ReturnType<typeof createRedisConnection>;
  beforeAll(async () => {
    redis = createRedisConnection(REDIS_URL, 'producer');
    target = await startOrderTarget();
    pipeline = await startPipeline({ worker: false });
  });
  afterAll(async () => {
    await pipeline.close();
    await target.close();
    redis.disconnect();
  });

  it('re-enqueues a released head whose hand-off was lost (a worker died), never the events behind it', async () => {
    const admin = (await userCredential(pipeline, 'admin')).authorization;
    await createRule(pipeline, admin, 'swept', target.url, { header: 'x-key' });
    const queue = createDeliveryQueue({ connection: redis, prefix: pipeline.prefix });
    const sweep = createEventSweepRepository(pipeline.store.prisma);
    const sweeper = createSweeper({ sweep, queue, redis, prefix: pipeline.prefix, graceMs: 0, logger: silent });
    await waitFor(() => redis.status === 'ready');
    expect((await sweeper.runOnce()).full).toBe(true); // a new queue: the epoch is set now
    const ids = [...(await ingest(pipeline, 'swept', stream(['S'], 3))).values()];
    await waitFor(async () => (await queue.countPendingJobs()) === 3, 30_000, 'three jobs');
    // As a worker leaves it: S0 delivered and released (it died before handing S1 a job); S1 and S2
    // each found S0 ahead of them, so their jobs ended.
    await pipeline.store.pool.query(`UPDATE events SET status = 'delivered' WHERE id = $1`, [ids[0]]);
    await reopenEvents(pipeline.store.pool, [ids[0]!]);
    await pipeline.store.pool.query('DELETE FROM event_ordering WHERE event_id = $1', [ids[0]]);
    for (const id of ids) await queue.queues[0]!.remove(id);

    // S2 waits behind S1: it is neither counted as lacking a job nor swept.
    expect(await sweep.countQueued()).toBe(1);
    expect((await sweep.findOverdue(new Date(Date.now() + 1_000), 10)).map((r) => r.id)).toEqual([ids[1]]);
    expect((await sweep.findQueuedPage(10)).map((r) => r.id)).toEqual([ids[1]]);
    expect(await sweeper.runOnce()).toEqual({ full: false, enqueued: 1 });
    expect(await queue.queues[0]!.getJob(ids[2]!)).toBeUndefined();
    await queue.close();

    pipeline.startWorker();
    await pipeline.waitForStatus(ids[2]!, 'delivered');
    expect(target.accepted('S')).toEqual([1, 2]);
  });
});

describe('ordered delivery when a worker is killed mid-stream', () => {
  let pipeline: Pipeline;
  let target: OrderTarget;
  let child: ChildProcess | undefined;
  beforeAll(async () => {
    target = await startOrderTarget();
    pipeline = await startPipeline({ worker: false });
  });
  afterAll(async () => {
    child?.kill('SIGKILL');
    await pipeline.close();
    await target.close();
  });

  it('keeps each key in order, losing and duplicating nothing', async () => {
    const admin = (await userCredential(pipeline, 'admin')).authorization;
    await createRule(pipeline, admin, 'killed', target.url, { json_pointer: '/key' });
    // The first attempts of K2 and L3 hang: the worker is killed while both keys wait on them. (A kill
    // during an answered attempt would redeliver that event: delivery is at least once.)
    const hangs = (key: string, seq: number) => (key === 'K' && seq === 2) || (key === 'L' && seq === 3);
    target.answerWith((key, seq, nth) => (hangs(key, seq) && nth === 1 ? 'hang' : 200));
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
    const ids = await ingest(pipeline, 'killed', stream(['K', 'L'], 5));
    await waitFor(() => target.received.filter((r) => r.status === 'hang').length === 2, 30_000, 'two hangs');
    for (const name of ['K0', 'K1', 'L0', 'L1', 'L2']) await pipeline.waitForStatus(ids.get(name)!, 'delivered');
    child.kill('SIGKILL');
    await new Promise((resolve) => child!.once('exit', resolve));
    expect(target.accepted('K')).toEqual([0, 1]);
    expect(target.accepted('L')).toEqual([0, 1, 2]);

    // The killed worker's locks (FAST_WORKER_ENV: 1 s) expire and its jobs are found stalled; the new worker's own
    // are longer, so a busy machine that stalls its event loop for a second does not redeliver what it holds.
    pipeline.startWorker({ WORKER_LOCK_DURATION_MS: '15000' });
    for (const id of ids.values()) await pipeline.waitForStatus(id, 'delivered', 30_000);
    expect(target.accepted('K')).toEqual(inOrder(5));
    expect(target.accepted('L')).toEqual(inOrder(5));
    expect(await pipeline.store.prisma.eventOrdering.count()).toBe(0);
  });
});
