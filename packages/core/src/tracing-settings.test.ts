import { z } from 'zod';
import { parseSettings } from './config-schema';
import { tracingFields, tracingSettingsOf } from './tracing-settings';

const settingsOf = (env: Record<string, string>) =>
  tracingSettingsOf(parseSettings(z.object(tracingFields), env), 'relay-api');

describe('tracing settings', () => {
  it('are off without an endpoint, and with OTEL_SDK_DISABLED', () => {
    expect(settingsOf({})).toBeUndefined();
    expect(settingsOf({ OTEL_EXPORTER_OTLP_ENDPOINT: '' })).toBeUndefined();
    expect(settingsOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
  });

  it('post to <endpoint>/v1/traces, or to the traces endpoint as given; protobuf and parent-based by default', () => {
    expect(settingsOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/' })).toEqual({
      url: 'http://c:4318/v1/traces',
      protocol: 'http/protobuf',
      headers: {},
      serviceName: 'relay-api',
      sampler: 'parentbased_always_on',
      samplerArg: undefined,
    });
    const traces = settingsOf({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://t/x',
    });
    expect(traces?.url).toBe('http://t/x');
  });

  it('read the headers, protocol, service name and sampler of the standard variables', () => {
    const settings = settingsOf({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'https://api.honeycomb.io',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-honeycomb-team=abc%3D,other=1',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'other=2',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'relay',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
    });
    expect(settings).toMatchObject({
      headers: { 'x-honeycomb-team': 'abc=', other: '2' },
      protocol: 'http/json',
      serviceName: 'relay',
      sampler: 'parentbased_traceidratio',
      samplerArg: 0.25,
    });
  });

  it('refuse gRPC, unknown samplers and ratios out of range', () => {
    expect(() => settingsOf({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(/OTEL_EXPORTER_OTLP_PROTOCOL/);
    expect(() => settingsOf({ OTEL_TRACES_SAMPLER: 'sometimes' })).toThrow(/OTEL_TRACES_SAMPLER/);
    expect(() => settingsOf({ OTEL_TRACES_SAMPLER_ARG: '2' })).toThrow(/from 0 to 1/);
  });
});
