// What every process of the relay shares: its logger, readiness checks and signal handling.
export * from './logger';
export * from './metrics-access';
export * from './readiness';
export * from './shutdown';
export * from './tracing/tracer';
export * from './tracing/start-tracing';
export type { TracingSettings } from './tracing/otel-tracer';
