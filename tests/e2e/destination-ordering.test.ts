import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from '@relay/test-support';
import { startPipeline, userCredential, type Pipeline } from './harness';

// Ordered delivery per destination (docs/routing.md, "Destinations"; docs/rules.md, "Ordered delivery"), end to end
// against a real local HTTP target: each destination delivers a key's webhooks one at a time in ingest order, on
// its own: a key held at one destination (its head failing) holds nothing at the primary or at other destinations,
// and the primary's held key holds no destination.

const PATIENCE = 60_000;
jest.setTimeout(4 * PATIENCE);

interface Received {
  path: string;
  key: string;
  seq: number;
  status: number;
}
type Decide = (path: string, key: string, seq: number) => number;

// One server for the primary and both destinations, told apart by path, answering by payload ({ key, seq }).
async function startOrderTarget() {
  const received: Received[] = [];
  let decide: Decide = () => 200;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const { key, seq } = JSON.parse(Buffer.concat(chunks).toString()) as { key: string; seq: number };
      const path = req.url ?? '';
      const status = decide(path, key, seq);
      received.push({ path, key, seq, status });
      res.writeHead(status).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    answerWith: (next: Decide) => void (decide = next),
    /** The webhooks of a key one path accepted (2xx), in the order it accepted them. */
    accepted: (path: string, key: string) =>
      received.filter((r) => r.path === path && r.key === key && r.status === 200).map((r) => r.seq),
    /** Everything of a key one path was sent, in order, failures included. */
    sent: (path: string, key: string) => received.filter((r) => r.path === path && r.key === key).map((r) => r.seq),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const inOrder = (count: number) => Array.from({ length: count }, (_, i) => i);

describe('ordered delivery per destination', () => {
  let pipeline: Pipeline;
  let target: Awaited<ReturnType<typeof startOrderTarget>>;
  beforeAll(async () => {
    target = await startOrderTarget();
    // A long run of quick retries, so a held head keeps retrying while the test looks at the others.
    pipeline = await startPipeline({
      worker: { DELIVERY_MAX_ATTEMPTS: '100', DELIVERY_BACKOFF_BASE_MS: '50', DELIVERY_BACKOFF_MAX_MS: '200' },
    });
  });
  afterAll(async () => {
    await pipeline.close();
    await target.close();
  });

  it('holds a key only at the destination whose head fails; the primary and other destinations go on', async () => {
    const admin = (await userCredential(pipeline, 'admin')).authorization;
    const rule = await pipeline.http
      .post('/rules')
      .set('authorization', admin)
      .send({ source: 'ordered-routes', target_url: `${target.url}/primary`, ordering: { header: 'x-key' } })
      .expect(201);
    const ruleId = rule.body.id as string;
    const add = async (name: string) =>
      (
        await pipeline.http
          .post(`/rules/${ruleId}/destinations`)
          .set('authorization', admin)
          .send({ name, target_url: `${target.url}/${name}` })
          .expect(201)
      ).body.id as string;
    const [a, b] = [await add('a'), await add('b')];
    // The primary's head of X fails, and so does destination a's head of Y, while they are held.
    let holdPrimary = true;
    let holdA = true;
    target.answerWith((path, key, seq) =>
      (path === '/primary' && key === 'X' && seq === 0 && holdPrimary) ||
      (path === '/a' && key === 'Y' && seq === 0 && holdA)
        ? 500
        : 200,
    );
    // One at a time, each stored before the next is sent: ingest order is this order.
    const ids = new Map<string, string>();
    for (let seq = 0; seq < 4; seq++)
      for (const key of ['X', 'Y']) {
        const res = await pipeline.http
          .post('/ordered-routes')
          .set('content-type', 'application/json')
          .set('x-key', key)
          .send(JSON.stringify({ key, seq }))
          .expect(202);
        ids.set(`${key}${seq}`, res.body.id as string);
      }

    // Everything not held arrives, in order: b gets both keys, a gets X (the primary's hold is not its own), the
    // primary gets Y (a's hold is not its own).
    await waitFor(
      () =>
        target.accepted('/b', 'X').length === 4 &&
        target.accepted('/b', 'Y').length === 4 &&
        target.accepted('/a', 'X').length === 4 &&
        target.accepted('/primary', 'Y').length === 4,
      PATIENCE,
      'the keys nothing holds',
    );
    for (const [path, key] of [
      ['/b', 'X'],
      ['/b', 'Y'],
      ['/a', 'X'],
      ['/primary', 'Y'],
    ] as const)
      expect(target.sent(path, key)).toEqual(inOrder(4));
    expect(target.accepted('/a', 'Y')).toEqual([]);
    expect(target.accepted('/primary', 'X')).toEqual([]);
    // a's later deliveries of Y wait behind its failing head with no attempt made.
    for (const seq of [1, 2, 3]) {
      const delivery = await pipeline.store.prisma.delivery.findFirstOrThrow({
        where: { eventId: ids.get(`Y${seq}`)!, destinationId: a },
      });
      expect(delivery).toMatchObject({ status: 'queued', attemptCount: 0 });
    }
    expect(target.sent('/a', 'Y').every((seq) => seq === 0)).toBe(true);

    // Released, each holder delivers its key's webhooks in ingest order, one at a time.
    holdA = false;
    await waitFor(() => target.accepted('/a', 'Y').length === 4, PATIENCE, "a's Y");
    expect(target.accepted('/a', 'Y')).toEqual(inOrder(4));
    holdPrimary = false;
    await waitFor(() => target.accepted('/primary', 'X').length === 4, PATIENCE, "the primary's X");
    expect(target.accepted('/primary', 'X')).toEqual(inOrder(4));
    // Only the held heads were sent more than once: the webhooks behind them went once each.
    const sentOf = (path: string, key: string) => target.sent(path, key).filter((seq) => seq > 0);
    expect(sentOf('/a', 'Y')).toEqual([1, 2, 3]);
    expect(sentOf('/primary', 'X')).toEqual([1, 2, 3]);
    for (const id of ids.values()) await pipeline.waitForStatus(id, 'delivered', PATIENCE);
    const deliveries = await pipeline.store.prisma.delivery.findMany({ where: { destinationId: { in: [a, b] } } });
    expect(deliveries).toHaveLength(16);
    expect(deliveries.every((d) => d.status === 'delivered' && d.orderingKey !== null)).toBe(true);
  });
});
