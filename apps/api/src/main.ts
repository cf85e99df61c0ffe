import { getHeapStatistics } from 'node:v8';
import { createLogger, handleShutdownSignals } from '@relay/service-kit';
import { parseApiConfig } from './config';
import { heapShortfall } from './heap-budget';
import { createApiRuntime } from './runtime';

const config = parseApiConfig(process.env);
const logger = createLogger('api', config.LOG_LEVEL);
const shortfall = heapShortfall(config, getHeapStatistics().heap_size_limit);
if (shortfall) {
  logger.fatal(shortfall);
  process.exit(1);
}
const runtime = createApiRuntime(config, logger);
const server = runtime.createServer().listen(config.PORT, config.HOST, () => {
  logger.info({ port: config.PORT, host: config.HOST }, 'api listening');
});
// Start-up work runs beside listening: /ready already answers, and a failure stops the process.
runtime.start().catch((err: unknown) => {
  logger.fatal({ err }, 'start-up failed');
  process.exit(1);
});

// SIGTERM: stop taking connections, answer what is in flight, flush the ingest batch, then exit.
handleShutdownSignals({
  logger,
  timeoutMs: config.SHUTDOWN_TIMEOUT_MS,
  startMessage: 'shutting down',
  timeoutMessage: 'shutdown timed out; exiting',
  stop: async () => {
    runtime.beginShutdown();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
    await runtime.close();
  },
});
