import { getHeapStatistics } from 'node:v8';
import { tracingSettingsOf } from '@relay/core';
import { createLogger, handleShutdownSignals, startTracing, type Tracer } from '@relay/service-kit';
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
// Traces only with an OTLP endpoint set: else the no-op tracer, and no OpenTelemetry module is loaded.
startTracing(tracingSettingsOf(config, 'relay-api')).then(serve, (err: unknown) => {
  logger.fatal({ err }, 'tracing could not start');
  process.exit(1);
});

function serve(tracer: Tracer) {
  const runtime = createApiRuntime(config, logger, { tracer });
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
      // The spans of the last requests are exported before the process ends.
      await tracer.shutdown();
    },
  });
}
