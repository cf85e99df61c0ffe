import { tracingSettingsOf } from '@relay/core';
import { createLogger, handleShutdownSignals, startTracing, type Tracer } from '@relay/service-kit';
import { parseWorkerConfig } from './config';
import { createHealthServer, listenHealthServer } from './health-server';
import { createWorkerRuntime } from './runtime';

const config = parseWorkerConfig(process.env);
const logger = createLogger('delivery-worker', config.LOG_LEVEL);
// Traces only with an OTLP endpoint set: else the no-op tracer, and no OpenTelemetry module is loaded.
startTracing(tracingSettingsOf(config, 'relay-worker')).then(work, (err: unknown) => {
  logger.fatal({ err }, 'tracing could not start');
  process.exit(1);
});

function work(tracer: Tracer) {
  const runtime = createWorkerRuntime(config, logger, { tracer });
  const healthServer =
    config.WORKER_HEALTH_PORT > 0
      ? listenHealthServer(
          createHealthServer(runtime.health, { registry: runtime.metrics.registry, token: config.METRICS_TOKEN }),
          config.WORKER_HEALTH_PORT,
          logger,
        )
      : undefined;
  logger.info({ concurrency: config.DELIVERY_CONCURRENCY }, 'delivery worker started');

  // SIGTERM: take no new jobs, finish the deliveries in flight, then exit.
  handleShutdownSignals({
    logger,
    timeoutMs: config.SHUTDOWN_TIMEOUT_MS,
    startMessage: 'draining in-flight deliveries',
    timeoutMessage: 'drain timed out; exiting (unfinished jobs are retried by another worker)',
    stop: async () => {
      await runtime.close();
      healthServer?.close();
      // The spans of the last deliveries are exported before the process ends.
      await tracer.shutdown();
    },
  });
}
