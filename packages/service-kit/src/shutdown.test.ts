import { pino } from 'pino';
import { handleShutdownSignals } from './shutdown';
import { checkReadiness } from './readiness';

const logger = pino({ level: 'silent' });

describe('handleShutdownSignals', () => {
  afterEach(() => {
    process.removeAllListeners('SIGTERM');
    process.removeAllListeners('SIGINT');
  });

  const start = (stop: () => Promise<void>, timeoutMs = 1_000) => {
    const exits: number[] = [];
    const shutdown = handleShutdownSignals({
      logger,
      timeoutMs,
      startMessage: 'stopping',
      timeoutMessage: 'timed out',
      stop,
      exit: (code) => exits.push(code),
    });
    return { shutdown, exits };
  };

  it('stops once and exits 0, however many signals arrive', async () => {
    let stops = 0;
    const { shutdown, exits } = start(async () => void stops++);
    await Promise.all([shutdown('SIGTERM'), shutdown('SIGINT')]);
    expect({ stops, exits }).toEqual({ stops: 1, exits: [0] });
  });

  it('exits 1 when stopping fails', async () => {
    const { shutdown, exits } = start(async () => {
      throw new Error('redis gone');
    });
    await shutdown('SIGTERM');
    expect(exits).toEqual([1]);
  });

  it('exits 1 when stopping outlives the timeout', async () => {
    const { shutdown, exits } = start(() => new Promise((resolve) => setTimeout(resolve, 200)), 20);
    await shutdown('SIGTERM');
    expect(exits[0]).toBe(1);
  });
});

describe('checkReadiness', () => {
  it('reports each dependency, bounds a hung one and is not ready while shutting down', async () => {
    const report = await checkReadiness(
      { checks: { db: async () => undefined, redis: () => new Promise(() => undefined) }, isShuttingDown: () => false },
      30,
    );
    expect(report).toEqual({
      ready: false,
      shuttingDown: false,
      checks: { db: 'ok', redis: 'unavailable: no answer within 30 ms' },
    });
    const closing = await checkReadiness({ checks: { db: async () => undefined }, isShuttingDown: () => true });
    expect(closing).toEqual({ ready: false, shuttingDown: true, checks: { db: 'ok' } });
  });
});
