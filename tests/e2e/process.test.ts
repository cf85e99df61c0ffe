import { spawn } from 'node:child_process';
import path from 'node:path';
import { freePort, waitFor } from '@relay/test-support';
import { startPipeline, type Pipeline } from './harness';

const ROOT = path.resolve(__dirname, '../..');
const API_MAIN = path.join(ROOT, 'apps/api/src/main.ts');

function runApi(env: Record<string, string | undefined>) {
  const child = spawn(process.execPath, ['--import', 'tsx', API_MAIN], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, output: () => output };
}

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
  }, 30_000);

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
      20_000,
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
  }, 30_000);
});
