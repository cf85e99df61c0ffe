import { API_SETTING_NAMES, parseApiConfig } from '../../apps/api/src/config';
import { parseWorkerConfig, WORKER_SETTING_NAMES } from '../../apps/delivery-worker/src/config';
import { exampleSettings, read, readCompose } from './compose-file';

// docker-compose.yml passes settings to the relay only through its shared environment block (no env_file: Compose
// 1.29 cannot make one optional), so a setting missing there never reaches the containers, and a default written
// there wins over the code's. The block, .env.example and the config schemas must therefore agree.
const compose = readCompose('docker-compose.yml');
const shared = compose['x-relay-env'] as Record<string, string>;
const example = exampleSettings();
const RELAY_SERVICES = ['migrate', 'api', 'delivery-worker'];
// What compose sets itself so that the processes find its own services and ports, whatever .env says.
const PINNED: Record<string, { service: string; value: string }> = {
  DATABASE_URL: { service: 'shared', value: 'postgresql://relay:relay@postgres:5432/relay' },
  REDIS_URL: { service: 'shared', value: 'redis://redis:6379' },
  PORT: { service: 'api', value: '3000' },
  HOST: { service: 'api', value: '0.0.0.0' },
  WORKER_HEALTH_PORT: { service: 'delivery-worker', value: '3001' },
};

const defaultOf = (value: string) => /^\$\{([A-Z][A-Z0-9_]*):-([^}]*)\}$/.exec(value);
// The names compose substitutes anywhere but in the shared block: its own settings (ports, image tag, Grafana's).
const composeText = read('docker-compose.yml').replace(/^\s*#.*$/gm, '');
const composeOnly = new Set(
  [...composeText.matchAll(/\$\{([A-Z][A-Z0-9_]*)/g)].map((m) => m[1]!).filter((name) => !(name in shared)),
);

// Some defaults follow other settings (the session cookie is Secure when PUBLIC_BASE_URL is https): each default is
// compared with the others unset, and again beside such settings.
const CONTEXTS: Record<string, string>[] = [{}, { PUBLIC_BASE_URL: 'https://relay.example.com', PORT: '8080' }];

const schemas = [
  { process: 'api', names: API_SETTING_NAMES, parse: parseApiConfig as (env: object) => Record<string, unknown> },
  {
    process: 'worker',
    names: WORKER_SETTING_NAMES,
    parse: parseWorkerConfig as (env: object) => Record<string, unknown>,
  },
];

describe("docker-compose.yml's settings", () => {
  it('lists every setting of .env.example as ${NAME:-default}, but those compose pins or uses itself', () => {
    const missing = [...example.keys()].filter((name) => {
      if (name in PINNED || composeOnly.has(name)) return false;
      const m = defaultOf(shared[name] ?? '');
      return m?.[1] !== name;
    });
    expect(missing).toEqual([]);
  });

  it('substitutes no setting that .env.example does not show', () => {
    const unknown = [...Object.keys(shared), ...composeOnly].filter((name) => !example.has(name));
    expect(unknown).toEqual([]);
  });

  it('pins the connection strings and ports to its own services', () => {
    for (const [name, { service, value }] of Object.entries(PINNED)) {
      const environment = service === 'shared' ? shared : compose.services[service]?.environment;
      expect([name, environment?.[name]]).toEqual([name, value]);
    }
  });

  it('gives every relay service the whole shared block', () => {
    for (const service of RELAY_SERVICES) {
      const environment = compose.services[service]?.environment ?? {};
      const lacking = Object.keys(shared).filter((name) => environment[name] !== shared[name]);
      expect([service, lacking]).toEqual([service, []]);
    }
  });

  it("defaults each setting to what the config schema does when it is unset (an empty value means the schema's)", () => {
    const differ: string[] = [];
    for (const [name, value] of Object.entries(shared)) {
      if (name in PINNED) continue;
      const fallback = defaultOf(value)?.[2];
      const readers = schemas.filter((schema) => schema.names.includes(name));
      if (fallback === undefined || readers.length === 0) {
        differ.push(`${name}: ${fallback === undefined ? 'no ${NAME:-default}' : 'read by no process'}`);
        continue;
      }
      for (const schema of readers) {
        for (const others of CONTEXTS) {
          const unsetEnv: Record<string, string> = { ...others };
          delete unsetEnv[name];
          const given = schema.parse({ ...unsetEnv, [name]: fallback })[name];
          const unset = schema.parse(unsetEnv)[name];
          if (JSON.stringify(given) !== JSON.stringify(unset)) {
            differ.push(`${name} (${schema.process}): compose ${JSON.stringify(given)}, code ${JSON.stringify(unset)}`);
          }
        }
      }
    }
    expect(differ).toEqual([]);
  });

  it('names the compose-only settings in .env.example with the defaults compose uses', () => {
    for (const name of composeOnly) {
      const fallbacks = new Set(
        [...composeText.matchAll(new RegExp(`\\$\\{${name}:-([^}]*)\\}`, 'g'))].map((m) => m[1]),
      );
      expect([name, [...fallbacks]]).toEqual([name, [example.get(name)]]);
    }
    expect([...composeOnly].sort()).toEqual(expect.arrayContaining(['RELAY_BIND', 'RELAY_IMAGE', 'RELAY_PORT']));
  });
});
