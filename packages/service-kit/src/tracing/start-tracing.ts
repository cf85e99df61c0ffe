import { NOOP_TRACER, type Tracer } from './tracer';
import type { TracingSettings } from './otel-tracer';

/**
 * The tracer a process uses: the no-op one when no OTLP endpoint is set (nothing of OpenTelemetry is loaded),
 * else the SDK's, loaded now. main.ts decides, from its settings.
 */
export async function startTracing(settings: TracingSettings | undefined): Promise<Tracer> {
  if (settings === undefined) return NOOP_TRACER;
  const { startOtelTracer } = await import('./otel-tracer');
  return startOtelTracer(settings);
}
