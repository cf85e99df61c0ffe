import { freePort, waitFor } from '@relay/test-support';
import { startPipeline, type Pipeline } from './harness';
import { runProcess } from './process-runner';

const runApi = (env: Record<string, string | undefined>) => runProcess('api', env);

describe('the api process', () => {
  let pipeline: Pipeline;
  beforeAll(async () => {
    pipeline = await startPipeline({ worker: false });
  });
  afterAll(() => pipeline.close());

  it('refuses to start on an invalid setting and names it', async () => {
    const api = runApi({ ...pipeline.baseEnv, PORT: 'eighty', ALLOW_PUBLIC_TARGET_OVERRIDE: 'yes' });
    expect(await api.exited).not.toBe(0);
    expect(api.output()).toMatch(/PORT: must be a whole number/);
    expect(api.output()).toMatch(/ALLOW_PUBLIC_TARGET_OVERRIDE/);
  });

  it('advertises its own PORT in /config/endpoint when PUBLIC_BASE_URL is unset', async () => {
    const port = await freePort();
    const env = { ...pipeline.baseEnv, PORT: String(port), HOST: '127.0.0.1', PUBLIC_BASE_URL: undefined };
    const api = runApi(env);
    try {
      const res = await waitFor(
        () => fetch(`http://127.0.0.1:${port}/config/endpoint`).catch(() => undefined),
        60_000,
        'api to listen',
      );
      // The dashboard's ready-made curl is built from ingest_url (pages/events/events-empty.tsx).
      expect(await res.json()).toMatchObject({
        base_url: `http://localhost:${port}`,
        ingest_url: `http://localhost:${port}/`,
      });
    } finally {
      api.child.kill('SIGTERM');
      await api.exited;
    }
  });

  it('drains on SIGTERM: a webhook in its batch window is still committed and answered, then it exits 0', async () => {
    const port = await freePort();
    const api = runApi({
      ...pipeline.baseEnv,
      LOG_LEVEL: 'info',
      PORT: String(port),
      HOST: '127.0.0.1',
      INGEST_BATCH_WAIT_MS: '400',
    });
    await waitFor(
      async () => (await fetch(`http://127.0.0.1:${port}/health`).catch(() => undefined))?.ok,
      60_000,
      'api to listen',
    );
    const pending = fetch(`http://127.0.0.1:${port}/github`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"during":"shutdown"}',
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    api.child.kill('SIGTERM');
    const res = await pending;
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: string };
    expect(await pipeline.eventById(id)).not.toBeNull();
    expect(await api.exited).toBe(0);
    expect(api.output()).toMatch(/"msg":"stopped"/);
  });
});
