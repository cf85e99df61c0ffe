import { parseApiConfig } from './config';
import { createLogger } from './logger';
import { createApiRuntime } from './runtime';

const config = parseApiConfig(process.env);
const logger = createLogger(config.LOG_LEVEL);
const runtime = createApiRuntime(config, logger);
const server = runtime.app.listen(config.PORT, config.HOST, () => {
  logger.info({ port: config.PORT, host: config.HOST }, 'api listening');
});
// Start-up work runs beside listening: /ready already answers, and a failure stops the process.
runtime.start().catch((err: unknown) => {
  logger.fatal({ err }, 'start-up failed');
  process.exit(1);
});

// SIGTERM: stop taking connections, answer what is in flight, flush the ingest batch, then exit.
let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'shutting down');
  runtime.beginShutdown();
  const force = setTimeout(() => {
    logger.error('shutdown timed out; exiting');
    process.exit(1);
  }, config.SHUTDOWN_TIMEOUT_MS);
  force.unref();
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
  await runtime.close();
  logger.info('stopped');
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
