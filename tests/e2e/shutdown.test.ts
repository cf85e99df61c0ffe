import { startTargetServer, type TargetServer } from '@relay/test-support';
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
    const closing = pipeline.worker!.close();
    expect(pipeline.worker!.health.isShuttingDown()).toBe(true);
    await closing;
    const event = await pipeline.eventById(res.body.id);
    expect(event?.status).toBe('delivered');
    expect(await pipeline.attemptsOf(res.body.id)).toHaveLength(1);
  });

  it('the api flushes its pending ingest batch when it closes', async () => {
    const slowBatch = await startPipeline({
      api: { DEFAULT_TARGET_URL: target.url, INGEST_BATCH_WAIT_MS: '500' },
      worker: false,
    });
    try {
      const pending = slowBatch.http.post('/a').set('content-type', 'application/json').send('{"late":true}');
      const answered = pending.then((r) => r);
      await new Promise((resolve) => setTimeout(resolve, 50));
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
