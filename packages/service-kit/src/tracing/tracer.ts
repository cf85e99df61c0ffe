// The relay's tracing port (docs/observability.md). Hot paths call it whatever the settings: when tracing is off
// they get NOOP_TRACER, whose spans do nothing, and no OpenTelemetry module is ever loaded (otel-tracer.ts is
// imported only by startTracing, and only when an OTLP endpoint is set). Spans are passed explicitly (a parent
// span of this process, or a W3C `traceparent` carried in a job or a header), never through an ambient context.

export type SpanKind = 'server' | 'client' | 'producer' | 'consumer' | 'internal';

/** Attribute values; undefined ones are left out. Never a payload, a header value or a secret. */
export type SpanAttributes = Record<string, string | number | boolean | undefined>;

export interface TraceSpan {
  /** This span's W3C `traceparent` (carried in job data, or sent to a target); undefined when tracing is off. */
  readonly traceparent: string | undefined;
  setAttributes(attributes: SpanAttributes): void;
  /** Marks the span failed; `errorType` becomes `error.type` (a code or a status, never a message). */
  fail(errorType: string): void;
  end(): void;
}

export interface SpanOptions {
  kind?: SpanKind;
  /** A span of this process, or a `traceparent` from a job or a trusted header; none: a new trace. */
  parent?: TraceSpan | string | undefined;
  /** Spans this one follows without being their child (`traceparent`s): an untrusted inbound one, the last try. */
  links?: readonly (string | undefined)[];
  attributes?: SpanAttributes;
}

export interface Tracer {
  /** False for NOOP_TRACER: hot paths skip building attributes at all. */
  readonly enabled: boolean;
  startSpan(name: string, options?: SpanOptions): TraceSpan;
  /** Exports the spans still buffered and stops (process shutdown, tests). */
  shutdown(): Promise<void>;
}

export const NOOP_SPAN: TraceSpan = Object.freeze({
  traceparent: undefined,
  setAttributes() {},
  fail() {},
  end() {},
});

export const NOOP_TRACER: Tracer = Object.freeze({
  enabled: false,
  startSpan: () => NOOP_SPAN,
  shutdown: async () => {},
});

/** A child of `parent` when tracing is on, else the no-op span (no attribute object is built by the caller's lambda). */
export function childSpan(
  tracer: Tracer,
  parent: TraceSpan,
  name: string,
  options?: () => Omit<SpanOptions, 'parent'>,
): TraceSpan {
  if (!tracer.enabled) return NOOP_SPAN;
  return tracer.startSpan(name, { ...options?.(), parent });
}

/** Runs `work` inside `span` and ends it, marking it failed when `work` throws. */
export async function inSpan<T>(span: TraceSpan, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    span.fail(err instanceof Error ? err.name : 'error');
    throw err;
  } finally {
    span.end();
  }
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

export interface ParsedTraceparent {
  traceId: string;
  spanId: string;
  sampled: boolean;
}

/** A W3C `traceparent` (version 00) or undefined when it is malformed or all zeros (never trusted blindly). */
export function parseTraceparent(value: string | undefined): ParsedTraceparent | undefined {
  if (value === undefined) return undefined;
  const match = TRACEPARENT.exec(value.trim().toLowerCase());
  if (!match) return undefined;
  const [, traceId, spanId, flags] = match as unknown as [string, string, string, string];
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return undefined;
  return { traceId, spanId, sampled: (parseInt(flags, 16) & 1) === 1 };
}
