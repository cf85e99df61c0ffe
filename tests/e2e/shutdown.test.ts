import { startTargetServer, waitFor, type TargetServer } from '@relay/test-support';
import { startPipeline, type Pipeline } from './harness';

describe('graceful shutdown', () => {
  let pipeline: Pipeline;
  let target: TargetServer;
  beforeAll(async () => {
    target = await startTargetServer();
    pipeline = await startPipeline({ api: { DEFAULT_TARGET_URL: target.url } });
  });
  afterAll(async () => {
    await pipeline.close();
    await target.close();
  });

  it('a worker asked to stop finishes the delivery it has in flight', async () => {
    target.replyWith({ status: 200, body: 'slow', delayMs: 800 });
    const res = await pipeline.http.post('/a').set('content-type', 'application/json').send('{}').expect(202);
    await target.waitForRequests(1);
    const done: string[] = [];
    const closing = pipeline.worker!.close().then(() => done.push('first'));
    expect(pipeline.worker!.health.isShuttingDown()).toBe(true);
    // Asked again, during and after (a test's pipeline closes every worker it started): the one shutdown, so a
    // second call resolves only once everything is closed.
    const again = pipeline.worker!.close().then(() => done.push('second'));
    await Promise.all([closing, again]);
    expect(done).toEqual(['first', 'second']);
    await expect(pipeline.worker!.close()).resolves.toBeUndefined();
    const event = await pipeline.eventById(res.body.id);
    expect(event?.status).toBe('delivered');
    expect(await pipeline.attemptsOf(res.body.id)).toHaveLength(1);
  });

  it('the api flushes its pending ingest batch when it closes', async () => {
    // The batch closes by itself only after a second (the setting's maximum): closed while the webhook waits in
    // it, the webhook is stored in time only if close() flushes it.
    const slowBatch = await startPipeline({
      api: { DEFAULT_TARGET_URL: target.url, INGEST_BATCH_WAIT_MS: '1000' },
      worker: false,
    });
    try {
      let settled = false;
      const pending = slowBatch.http.post('/a').set('content-type', 'application/json').send('{"late":true}');
      const answered = pending.then((r) => ((settled = true), r));
      // Closed once the webhook waits in its batch: a fixed pause raced the request on a busy machine. (Should the
      // machine stall past the second, the batch closes by itself and the answer is still checked.)
      await waitFor(() => slowBatch.api.ingestWaiting() === 1 || settled || undefined, 30_000, 'the webhook to wait');
      await slowBatch.api.close();
      const res = await answered;
      expect(res.status).toBe(202);
      expect(await slowBatch.store.prisma.event.findUnique({ where: { id: res.body.id } })).not.toBeNull();
    } finally {
      await slowBatch.store.close().catch(() => {});
      await slowBatch.db.drop();
    }
  });
});
