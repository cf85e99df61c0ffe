import { createProbeService } from './probe.service';

const ok = async () => {};
const down = async () => {
  throw new Error('refused');
};

describe('probe service', () => {
  it('is ready when every dependency answers', async () => {
    const probes = createProbeService({
      checks: { database: ok, redis: ok },
      isStarted: () => true,
      isShuttingDown: () => false,
    });
    expect(await probes.readiness()).toEqual({
      ready: true,
      reason: null,
      checks: { database: 'ok', redis: 'ok' },
    });
  });

  it('names the dependency that fails or does not answer in time', async () => {
    const never = () => new Promise<void>(() => {});
    const probes = createProbeService({
      checks: { database: down, redis: never },
      isStarted: () => true,
      isShuttingDown: () => false,
      timeoutMs: 20,
    });
    expect(await probes.readiness()).toEqual({
      ready: false,
      reason: 'A dependency is unavailable.',
      checks: { database: 'unavailable: refused', redis: 'unavailable: no answer within 20 ms' },
    });
  });

  it('is never ready while shutting down', async () => {
    const probes = createProbeService({ checks: { database: ok }, isStarted: () => true, isShuttingDown: () => true });
    expect(await probes.readiness()).toMatchObject({ ready: false, reason: 'Shutting down.' });
  });

  it('is not ready before start-up work is done, though every dependency answers', async () => {
    let started = false;
    const probes = createProbeService({
      checks: { database: ok },
      isStarted: () => started,
      isShuttingDown: () => false,
    });
    expect(await probes.readiness()).toEqual({
      ready: false,
      reason: 'Start-up work (the initial admin) is not done yet.',
      checks: { database: 'ok' },
    });
    started = true;
    expect(await probes.readiness()).toMatchObject({ ready: true });
  });

  it('shows the read replica as a detail: a replica away leaves the process ready (reads go to the primary)', async () => {
    const probes = createProbeService({
      checks: { database: ok },
      isStarted: () => true,
      isShuttingDown: () => false,
      replica: () => ({ status: 'unavailable', reads: 'primary', lagSeconds: null, lagBytes: null, error: 'refused' }),
    });
    expect(await probes.readiness()).toEqual({
      ready: true,
      reason: null,
      checks: { database: 'ok' },
      replica: { status: 'unavailable', reads: 'primary', lag_seconds: null, lag_bytes: null, error: 'refused' },
    });
  });
});
