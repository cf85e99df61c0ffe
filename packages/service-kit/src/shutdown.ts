import type { Logger } from 'pino';

export interface ShutdownOptions {
  logger: Logger;
  /** After this long the process exits with 1 whatever is still running. */
  timeoutMs: number;
  /** Logged when a signal arrives. */
  startMessage: string;
  /** Logged when the timeout forces the exit. */
  timeoutMessage: string;
  /** Stops taking work, finishes what is in flight and closes connections. */
  stop: () => Promise<void>;
  exit?: (code: number) => void;
}

/**
 * SIGTERM and SIGINT run `stop` once, then exit 0; a stop that outlives the timeout or fails exits 1.
 * Returns the handler, so a test can call it without sending a signal.
 */
export function handleShutdownSignals(options: ShutdownOptions): (signal: string) => Promise<void> {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    options.logger.info({ signal }, options.startMessage);
    const force = setTimeout(() => {
      options.logger.error(options.timeoutMessage);
      exit(1);
    }, options.timeoutMs);
    force.unref();
    try {
      await options.stop();
      options.logger.info('stopped');
      exit(0);
    } catch (err) {
      options.logger.error({ err }, 'shutdown failed');
      exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  return shutdown;
}
