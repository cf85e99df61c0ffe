import http from 'node:http';
import { startPipeline, type Pipeline } from './harness';
import { listenApi, type ListeningApi } from './listen-api';
import { parseExposition, valueOf } from './metrics-text';

// INGEST_MAX_IN_FLIGHT over real HTTP against a Postgres that is slow but up: a lock on `events` keeps two webhooks
// waiting in the store, which fills a process bounded at 2, so the third is refused at once; both waiting ones are
// stored once the lock goes. A sender that has not finished its body holds no slot.
let pipeline: Pipeline;
let listening: ListeningApi;
beforeAll(async () => {
  pipeline = await startPipeline({
    api: { INGEST_MAX_IN_FLIGHT: '2', DEFAULT_TARGET_URL: 'https://example.com/hook' },
    worker: false,
  });
  listening = await listenApi(pipeline);
});
afterAll(async () => {
  await listening.close();
  await pipeline.close();
});

interface Answer {
  status: number;
  body: { id?: string; code?: string };
}

/** A webhook sent over a socket of its own; its body stops halfway until `finish()`. */
function webhook(path: string, body: string) {
  let request!: http.ClientRequest;
  const answer = new Promise<Answer>((resolve, reject) => {
    request = http.request(
      {
        port: listening.port,
        host: '127.0.0.1',
        method: 'POST',
        path,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Answer['body'] }));
      },
    );
    request.on('error', reject);
    request.write(body.slice(0, 5));
  });
  return { answer, finish: () => request.end(body.slice(5)) };
}

const scrape = async () => parseExposition((await pipeline.http.get('/metrics').expect(200)).text);
async function inFlightReaches(n: number): Promise<void> {
  // No time limit of its own: the test's timeout ends a run where it never comes.
  while (valueOf(await scrape(), 'relay_ingest_in_flight') !== n) await new Promise((r) => setTimeout(r, 20));
}

describe('ingest with INGEST_MAX_IN_FLIGHT=2', () => {
  it('refuses the webhook past the bound with 503 ingest_overloaded while two wait in the store', async () => {
    const before = await pipeline.store.prisma.event.count();
    // Three senders whose bodies have not finished: reading them holds no slot.
    const slow = [webhook('/slow', '{"slow":1}'), webhook('/slow', '{"slow":2}'), webhook('/slow', '{"slow":3}')];
    await pipeline.http.post('/meanwhile').set('content-type', 'application/json').send('{}').expect(202);
    expect(valueOf(await scrape(), 'relay_ingest_in_flight')).toBe(0);
    // One by one: three finished at once would be three in the store at once, past the bound.
    for (const sender of slow) {
      sender.finish();
      expect((await sender.answer).status).toBe(202);
    }

    // The store slow but up: inserts into events wait for this lock.
    const locker = await pipeline.store.pool.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE events IN EXCLUSIVE MODE');
      const waiting = [webhook('/held', '{"held":1}'), webhook('/held', '{"held":2}')];
      for (const sender of waiting) sender.finish();
      await inFlightReaches(2);

      const refused = await pipeline.http
        .post('/over')
        .set('content-type', 'application/json')
        .send('{"over":true}')
        .expect(503);
      expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(refused.headers['retry-after']).toBe('1');
      expect(refused.body).toMatchObject({ code: 'ingest_overloaded', limit: 2, status: 503 });
      expect(
        valueOf(await scrape(), 'relay_ingest_requests_total', { outcome: 'refused', reason: 'ingest_overloaded' }),
      ).toBe(1);

      await locker.query('COMMIT');
      const answers = await Promise.all(waiting.map((sender) => sender.answer));
      expect(answers.map((a) => a.status)).toEqual([202, 202]);
      const stored = await pipeline.store.prisma.event.findMany({
        where: { id: { in: answers.map((a) => a.body.id!) } },
        select: { source: true },
      });
      expect(stored).toEqual([{ source: 'held' }, { source: 'held' }]);
    } finally {
      await locker.query('ROLLBACK').catch(() => undefined);
      locker.release();
    }
    // The three slow ones, the one meanwhile and the two held: not the refused one.
    expect(await pipeline.store.prisma.event.count()).toBe(before + 6);
    await inFlightReaches(0);
    await pipeline.http.post('/after').set('content-type', 'application/json').send('{}').expect(202);
  });
});
