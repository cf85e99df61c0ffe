import { z } from 'zod';
import { flag, optionalText } from './config-schema';

// Traces (docs/observability.md): the standard OpenTelemetry variables each process's schema reads, so main.ts
// alone decides whether the SDK is loaded and hands it every value explicitly. The OTLP exporter of the SDK
// also reads OTEL_EXPORTER_OTLP_* itself (timeout, compression); the values read here win.

const SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;

// An empty value (compose's `${NAME:-}`) is unset, as for every other setting.
const choice = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.preprocess(
    (value) => (typeof value === 'string' && value.trim() === '' ? undefined : value),
    z.enum(values).optional(),
  );

const PROTOCOLS = ['http/protobuf', 'http/json'] as const;

export const tracingFields = {
  // Unset (both): no tracing at all, and nothing of OpenTelemetry is loaded.
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalText(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: optionalText(),
  // OTLP over HTTP only: protobuf (unset: the standard's default) or JSON.
  OTEL_EXPORTER_OTLP_PROTOCOL: choice(PROTOCOLS),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: choice(PROTOCOLS),
  // `key=value,...` sent with every export (a backend's API key): never logged.
  OTEL_EXPORTER_OTLP_HEADERS: optionalText(),
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: optionalText(),
  OTEL_SERVICE_NAME: optionalText(),
  // Unset: parentbased_always_on.
  OTEL_TRACES_SAMPLER: choice(SAMPLERS),
  OTEL_TRACES_SAMPLER_ARG: z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value.trim() === '') return undefined;
      const ratio = Number(value);
      if (!(ratio >= 0 && ratio <= 1)) {
        ctx.addIssue({ code: 'custom', message: 'must be a ratio from 0 to 1' });
        return z.NEVER;
      }
      return ratio;
    }),
  // The standard switch: true turns tracing off even with an endpoint set.
  OTEL_SDK_DISABLED: flag(false),
};

type TracingFields = { [K in keyof typeof tracingFields]?: z.output<(typeof tracingFields)[K]> };

const headersOf = (value: string | undefined): Record<string, string> => {
  const headers: Record<string, string> = {};
  for (const pair of (value ?? '').split(',')) {
    const at = pair.indexOf('=');
    if (at > 0) headers[decodeURIComponent(pair.slice(0, at).trim())] = decodeURIComponent(pair.slice(at + 1).trim());
  }
  return headers;
};

/** What the tracer needs (service-kit's TracingSettings), or undefined: tracing off. */
export function tracingSettingsOf(config: TracingFields, defaultServiceName: string) {
  if (config.OTEL_SDK_DISABLED) return undefined;
  const endpoint = config.OTEL_EXPORTER_OTLP_ENDPOINT;
  const url =
    config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ??
    (endpoint === undefined ? undefined : `${endpoint.replace(/\/+$/, '')}/v1/traces`);
  if (url === undefined) return undefined;
  return {
    url,
    protocol: config.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? config.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf',
    headers: {
      ...headersOf(config.OTEL_EXPORTER_OTLP_HEADERS),
      ...headersOf(config.OTEL_EXPORTER_OTLP_TRACES_HEADERS),
    },
    serviceName: config.OTEL_SERVICE_NAME ?? defaultServiceName,
    sampler: config.OTEL_TRACES_SAMPLER ?? 'parentbased_always_on',
    samplerArg: config.OTEL_TRACES_SAMPLER_ARG,
  };
}
