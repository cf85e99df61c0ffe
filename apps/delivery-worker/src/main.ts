import { parseWorkerConfig } from './config';
import { createHealthServer } from './health-server';
import { createLogger } from './logger';
import { createWorkerRuntime } from './runtime';

const config = parseWorkerConfig(process.env);
const logger = createLogger(config.LOG_LEVEL);
const runtime = createWorkerRuntime(config, logger);
const healthServer =
  config.WORKER_HEALTH_PORT > 0 ? createHealthServer(runtime.health).listen(config.WORKER_HEALTH_PORT) : undefined;
logger.info({ concurrency: config.DELIVERY_CONCURRENCY }, 'delivery worker started');

// SIGTERM: take no new jobs, finish the deliveries in flight, then exit.
let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'draining in-flight deliveries');
  const force = setTimeout(() => {
    logger.error('drain timed out; exiting (unfinished jobs are retried by another worker)');
    process.exit(1);
  }, config.SHUTDOWN_TIMEOUT_MS);
  force.unref();
  await runtime.close();
  healthServer?.close();
  logger.info('stopped');
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
