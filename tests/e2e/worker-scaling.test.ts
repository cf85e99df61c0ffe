import { freePort, startTargetServer, waitFor, type TargetServer } from '@relay/test-support';
import { FAST_WORKER_ENV, startPipeline, type Pipeline } from './harness';
import { runProcess } from './process-runner';

// Logs at info whatever the pipeline's settings say: the test reads the warning.
const runWorker = (env: Record<string, string | undefined>) =>
  runProcess('delivery-worker', { ...env, LOG_LEVEL: 'info' });

// The README scales workers by starting more of them; on one host they share the default WORKER_HEALTH_PORT.
describe('two worker processes on one host with the same WORKER_HEALTH_PORT', () => {
  let pipeline: Pipeline;
  let target: TargetServer;
  beforeAll(async () => {
    target = await startTargetServer();
    pipeline = await startPipeline({ api: { DEFAULT_TARGET_URL: `${target.url}/hook` }, worker: false });
  });
  afterAll(async () => {
    await pipeline.close();
    await target.close();
  });

  it('the second warns once naming WORKER_HEALTH_PORT, keeps running without its health server and delivers', async () => {
    const port = await freePort();
    const env = { ...pipeline.baseEnv, ...FAST_WORKER_ENV, WORKER_HEALTH_PORT: String(port) };
    const first = runWorker(env);
    let second: ReturnType<typeof runWorker> | undefined;
    try {
      await waitFor(
        async () => (await fetch(`http://127.0.0.1:${port}/health`).catch(() => undefined))?.ok,
        20_000,
        'the first worker to serve its health port',
      );
      second = runWorker(env);
      await waitFor(() => second!.output().includes('delivery worker started'), 20_000, 'the second worker to start');
      await waitFor(() => second!.output().includes('WORKER_HEALTH_PORT'), 20_000, 'the warning');

      // Only the second worker is left: the webhook can be delivered by it alone.
      first.child.kill('SIGTERM');
      expect(await first.exited).toBe(0);
      const res = await pipeline.http.post('/github').set('content-type', 'application/json').send('{"n":1}');
      expect(res.status).toBe(202);
      await pipeline.waitForStatus(res.body.id as string, 'delivered', 20_000);
      expect(target.requests.map((request) => request.url)).toEqual(['/hook']);

      expect(second.child.exitCode).toBeNull();
      const warnings = second
        .output()
        .split('\n')
        .filter((line) => line.includes('WORKER_HEALTH_PORT'));
      expect(warnings).toHaveLength(1);
      expect(JSON.parse(warnings[0]!)).toMatchObject({ level: 40, port });
      expect(second.output()).not.toContain('EADDRINUSE');
      second.child.kill('SIGTERM');
      expect(await second.exited).toBe(0);
    } finally {
      first.child.kill('SIGTERM');
      second?.child.kill('SIGTERM');
      await Promise.all([first.exited, second?.exited]);
    }
  });
});
