import http from 'node:http';
import https from 'node:https';
import type { Context, Link, Span, SpanContext } from '@opentelemetry/api';
import type { Sampler } from '@opentelemetry/sdk-trace';
import { parseTraceparent, type SpanOptions, type TraceSpan, type Tracer } from './tracer';

// The OpenTelemetry SDK behind the tracing port. Every OpenTelemetry package is imported dynamically, here
// only: the bundles (scripts/build.mjs) keep node_modules external, and a static import would load them in
// every process, traced or not.

export interface TracingSettings {
  /** Where spans are POSTed (core's tracingSettingsOf: the standard variables). */
  url: string;
  protocol: 'http/protobuf' | 'http/json';
  /** OTEL_EXPORTER_OTLP_HEADERS (and _TRACES_HEADERS): a backend's API key, for instance. */
  headers: Record<string, string>;
  /** OTEL_SERVICE_NAME, else the process's own name. */
  serviceName: string;
  sampler:
    | 'always_on'
    | 'always_off'
    | 'traceidratio'
    | 'parentbased_always_on'
    | 'parentbased_always_off'
    | 'parentbased_traceidratio';
  /** OTEL_TRACES_SAMPLER_ARG: the ratio of the traceidratio samplers (default 1). */
  samplerArg?: number | undefined;
  /** How long spans wait to be batched (the SDK's default 5 s; tests shorten it). */
  scheduledDelayMs?: number | undefined;
}

const hex2 = (flags: number) => (flags & 0xff).toString(16).padStart(2, '0');

export async function startOtelTracer(settings: TracingSettings): Promise<Tracer> {
  const [api, sdk, resources, exporters] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/resources'),
    settings.protocol === 'http/json'
      ? import('@opentelemetry/exporter-trace-otlp-http')
      : import('@opentelemetry/exporter-trace-otlp-proto'),
  ]);
  const ratio = settings.samplerArg ?? 1;
  const samplers: Record<TracingSettings['sampler'], () => Sampler> = {
    always_on: () => new sdk.AlwaysOnSampler(),
    always_off: () => new sdk.AlwaysOffSampler(),
    traceidratio: () => new sdk.TraceIdRatioBasedSampler(ratio),
    parentbased_always_on: () => new sdk.ParentBasedSampler({ root: new sdk.AlwaysOnSampler() }),
    parentbased_always_off: () => new sdk.ParentBasedSampler({ root: new sdk.AlwaysOffSampler() }),
    parentbased_traceidratio: () => new sdk.ParentBasedSampler({ root: new sdk.TraceIdRatioBasedSampler(ratio) }),
  };
  const exporter = new exporters.OTLPTraceExporter({
    url: settings.url,
    headers: settings.headers,
    // The exporter's own agent factory loads node:http with import(), which jest's module sandbox refuses.
    httpAgentOptions: (protocol: string) =>
      protocol === 'http:' ? new http.Agent({ keepAlive: true }) : new https.Agent({ keepAlive: true }),
  });
  const provider = new sdk.TracerProvider({
    resource: resources.resourceFromAttributes({ 'service.name': settings.serviceName }),
    sampler: samplers[settings.sampler](),
    spanProcessors: [
      new sdk.BatchSpanProcessor({
        exporter,
        ...(settings.scheduledDelayMs !== undefined ? { scheduledDelayMillis: settings.scheduledDelayMs } : {}),
      }),
    ],
  });
  const tracer = provider.getTracer('webhook-relay');
  const kinds = {
    server: api.SpanKind.SERVER,
    client: api.SpanKind.CLIENT,
    producer: api.SpanKind.PRODUCER,
    consumer: api.SpanKind.CONSUMER,
    internal: api.SpanKind.INTERNAL,
  };

  const remote = (traceparent: string | undefined): SpanContext | undefined => {
    const parsed = parseTraceparent(traceparent);
    if (!parsed) return undefined;
    const traceFlags = parsed.sampled ? api.TraceFlags.SAMPLED : api.TraceFlags.NONE;
    return { traceId: parsed.traceId, spanId: parsed.spanId, traceFlags, isRemote: true };
  };

  class OtelSpan implements TraceSpan {
    constructor(readonly span: Span) {}
    get traceparent(): string {
      const { traceId, spanId, traceFlags } = this.span.spanContext();
      return `00-${traceId}-${spanId}-${hex2(traceFlags)}`;
    }
    setAttributes(attributes: Record<string, string | number | boolean | undefined>): void {
      for (const [key, value] of Object.entries(attributes))
        if (value !== undefined) this.span.setAttribute(key, value);
    }
    fail(errorType: string): void {
      this.span.setAttribute('error.type', errorType);
      this.span.setStatus({ code: api.SpanStatusCode.ERROR });
    }
    end(): void {
      this.span.end();
    }
  }

  function contextOf(parent: SpanOptions['parent']): Context {
    if (parent instanceof OtelSpan) return api.trace.setSpan(api.ROOT_CONTEXT, parent.span);
    const context = typeof parent === 'string' ? remote(parent) : undefined;
    return context ? api.trace.setSpanContext(api.ROOT_CONTEXT, context) : api.ROOT_CONTEXT;
  }

  return {
    enabled: true,
    startSpan(name, options = {}) {
      const links: Link[] = [];
      for (const link of options.links ?? []) {
        const context = remote(link);
        if (context) links.push({ context });
      }
      const attributes: Record<string, string | number | boolean> = {};
      for (const [key, value] of Object.entries(options.attributes ?? {}))
        if (value !== undefined) attributes[key] = value;
      const span = tracer.startSpan(
        name,
        { kind: kinds[options.kind ?? 'internal'], links, attributes },
        contextOf(options.parent),
      );
      return new OtelSpan(span);
    },
    async shutdown() {
      await provider.shutdown();
    },
  };
}
