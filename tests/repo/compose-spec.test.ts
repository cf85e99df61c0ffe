import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Ajv from 'ajv';
import { parse } from 'yaml';
import { interpolate, read, readCompose } from './compose-file';

// `pnpm test:compose` runs docker-compose.yml under Debian's Compose 1.29; Compose v2 is not installable here, so the
// file is also validated against the schema Compose v2 checks files with (compose-spec.json, vendored with its source:
// fixtures/compose-spec/SOURCE.md). Both the file as written and as interpolated with its defaults must pass.
const schema = JSON.parse(readFileSync(path.join(__dirname, 'fixtures/compose-spec/compose-spec.json'), 'utf8')) as {
  $schema?: string;
};
delete schema.$schema; // draft-07, ajv's default; its https spelling is not a meta-schema ajv knows by that name
const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });
const validate = ajv.compile(schema);

const errorsOf = (file: unknown) =>
  validate(file) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`);

const FILES = ['docker-compose.yml', 'tests/compose/docker-compose.local.yml'];

describe('the compose files against the compose-spec schema', () => {
  it.each(FILES)('%s is valid as written', (file) => {
    expect(errorsOf(readCompose(file))).toEqual([]);
  });

  it.each(FILES)('%s is valid with its defaults substituted', (file) => {
    expect(errorsOf(interpolate(readCompose(file), {}))).toEqual([]);
  });

  it('finds a mistake (the validator is not a no-op)', () => {
    const broken = readCompose('docker-compose.yml');
    broken.services.api!.healthcheck = { test: ['CMD', 'true'], interval: 10 };
    broken.services.api!.restrat = 'always';
    expect(errorsOf(broken)).toEqual(
      expect.arrayContaining([expect.stringContaining('/services/api'), expect.stringContaining('interval')]),
    );
  });
});

describe('docker-compose.yml for Debian’s Compose 1.29', () => {
  const compose = readCompose('docker-compose.yml');

  // The two spellings 1.29 refuses (Compose 2.23/2.24 and later read them): an optional env_file, configs' content.
  it('has no env_file given by path/required and no inline configs content', () => {
    const envFiles = Object.entries(compose.services).filter(([, service]) =>
      [service.env_file ?? []].flat().some((entry) => typeof entry === 'object'),
    );
    expect(envFiles.map(([name]) => name)).toEqual([]);
    const inline = Object.entries(compose.configs ?? {}).filter(([, config]) => 'content' in config);
    expect(inline.map(([name]) => name)).toEqual([]);
  });
});

describe("Prometheus's metrics token", () => {
  const prometheus = readCompose('docker-compose.yml').services.prometheus!;
  const scrape = parse(read('deploy/prometheus/prometheus.yml')) as {
    scrape_configs: { authorization?: { credentials_file?: string } }[];
  };

  it('is written by the entrypoint to the file every scrape job reads, exactly, before Prometheus starts', () => {
    const files = new Set(scrape.scrape_configs.map((job) => job.authorization?.credentials_file));
    expect([...files]).toEqual(['/etc/prometheus/metrics-token']);
    expect(prometheus.environment).toEqual({ METRICS_TOKEN: '${METRICS_TOKEN:-}' });

    // The entrypoint as compose runs it ($$ is a literal $), with the file and the binary moved into a scratch dir.
    const [shell, flag, script, name] = interpolate(prometheus.entrypoint!, {});
    const dir = mkdtempSync(path.join(tmpdir(), 'relay-prometheus-'));
    try {
      const token = path.join(dir, 'metrics-token');
      const moved = script!.replace('/etc/prometheus/metrics-token', token).replace('/bin/prometheus', '/bin/echo');
      const output = execFileSync(shell!, [flag!, moved, name!, '--config.file=x', '--web.listen-address=:9090'], {
        env: { PATH: process.env.PATH, METRICS_TOKEN: 's3cret token' },
        encoding: 'utf8',
      });
      expect(readFileSync(token, 'utf8')).toBe('s3cret token');
      expect(output.trim()).toBe('--config.file=x --web.listen-address=:9090');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
