import http from 'node:http';
import { startPipeline, type Pipeline } from './harness';
import { listenApi, type ListeningApi } from './listen-api';
import { parseExposition, valueOf } from './metrics-text';

// INGEST_MAX_IN_FLIGHT over real HTTP: two webhooks whose bodies have not finished arriving hold both slots of a
// process bounded at 2, so the third is refused at once, and both held ones are stored once their bodies end.
let pipeline: Pipeline;
let listening: ListeningApi;
let port: number;
beforeAll(async () => {
  pipeline = await startPipeline({
    api: { INGEST_MAX_IN_FLIGHT: '2', DEFAULT_TARGET_URL: 'https://example.com/hook' },
    worker: false,
  });
  listening = await listenApi(pipeline);
  ({ port } = listening);
});
afterAll(async () => {
  await listening.close();
  await pipeline.close();
});

const BODY = '{"held":true}';

/** A webhook whose body stops halfway until `finish()`: it stays in flight at the api meanwhile. */
function heldWebhook() {
  let request!: http.ClientRequest;
  const answer = new Promise<{ status: number; body: { id?: string } }>((resolve, reject) => {
    request = http.request(
      {
        port,
        host: '127.0.0.1',
        method: 'POST',
        path: '/held',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(BODY) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as { id?: string } }));
      },
    );
    request.on('error', reject);
    request.write(BODY.slice(0, 5));
  });
  return { answer, finish: () => request.end(BODY.slice(5)) };
}

const scrape = async () => parseExposition((await pipeline.http.get('/metrics').expect(200)).text);
async function inFlightReaches(n: number): Promise<void> {
  // No time limit of its own: the test's timeout ends a run where it never comes.
  while (valueOf(await scrape(), 'relay_ingest_in_flight') !== n) await new Promise((r) => setTimeout(r, 20));
}

describe('ingest with INGEST_MAX_IN_FLIGHT=2', () => {
  it('refuses the webhook past the bound at once with 503 ingest_overloaded, stores the held ones', async () => {
    const before = await pipeline.store.prisma.event.count();
    const held = [heldWebhook(), heldWebhook()];
    await inFlightReaches(2);

    const refused = await pipeline.http
      .post('/over')
      .set('content-type', 'application/json')
      .send('{"over":true}')
      .expect(503);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.body).toMatchObject({ code: 'ingest_overloaded', limit: 2, status: 503 });
    const refusals = await scrape();
    expect(valueOf(refusals, 'relay_ingest_requests_total', { outcome: 'refused', reason: 'ingest_overloaded' })).toBe(
      1,
    );
    expect(await pipeline.store.prisma.event.count()).toBe(before);

    for (const webhook of held) webhook.finish();
    const answers = await Promise.all(held.map((webhook) => webhook.answer));
    expect(answers.map((a) => a.status)).toEqual([202, 202]);
    const stored = await pipeline.store.prisma.event.findMany({
      where: { id: { in: answers.map((a) => a.body.id!) } },
      select: { source: true },
    });
    expect(stored).toEqual([{ source: 'held' }, { source: 'held' }]);
    expect(await pipeline.store.prisma.event.count()).toBe(before + 2);

    // The slots are free again.
    await inFlightReaches(0);
    await pipeline.http.post('/after').set('content-type', 'application/json').send('{}').expect(202);
  });
});
