import { spawnSync } from 'node:child_process';
import path from 'node:path';

// Tracing off costs nothing (docs/observability.md): without an OTLP endpoint, the api's and the worker's module
// graphs and their tracers load no OpenTelemetry module at all. A child process records every module resolved
// (tests/repo/fixtures/tracing-modules.mjs); with an endpoint set, the same child loads the SDK (the check works).
// One exception, not the relay's: prom-client require()s @opentelemetry/api (its optional peer, for exemplars)
// whenever it can be resolved; that package is the API's no-op facade, no SDK, no exporter, nothing started.
const NOT_OURS = new Set(['@opentelemetry/api']);
const ours = (loaded: string[]) => loaded.filter((name) => !NOT_OURS.has(name));
const ROOT = path.resolve(__dirname, '../..');
const FIXTURE = path.join(__dirname, 'fixtures/tracing-modules.mjs');

function modulesLoaded(env: Record<string, string>) {
  const child = spawnSync(process.execPath, ['--import', 'tsx', FIXTURE], {
    cwd: ROOT,
    env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '', ...env },
    encoding: 'utf8',
  });
  if (child.status !== 0) throw new Error(child.stderr);
  return JSON.parse(child.stdout) as { enabled: boolean[]; loaded: string[] };
}

describe('tracing off', () => {
  it('loads no @opentelemetry module when no OTLP endpoint is set', () => {
    const off = modulesLoaded({});
    expect(off.enabled).toEqual([false, false]);
    expect(ours(off.loaded)).toEqual([]);
  });

  it('loads the SDK once an endpoint is set (OTEL_SDK_DISABLED=true still keeps it out)', () => {
    const on = modulesLoaded({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' });
    expect(on.enabled).toEqual([true, true]);
    expect(on.loaded).toEqual(expect.arrayContaining(['@opentelemetry/api', '@opentelemetry/sdk-trace']));
    const disabled = modulesLoaded({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_SDK_DISABLED: 'true' });
    expect(disabled.enabled).toEqual([false, false]);
    expect(ours(disabled.loaded)).toEqual([]);
  });
});
