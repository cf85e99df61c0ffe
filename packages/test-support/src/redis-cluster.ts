// Throw-away Redis Cluster and Sentinel deployments on spare ports, each in a temporary folder removed afterwards:
// the cluster and sentinel suites (issue 33) run the relay on the real engines, never on the machine's own Redis.
//
// Only Node's built-in modules are imported, and no relative ones, as in pg-cluster.ts: scripts/redis-cluster.mjs
// loads this file for manual runs (`up` / `down`) and the servers outlive that script, so everything needed to
// remove them again is kept in the folder's state.json.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

export interface RedisNode {
  host: string;
  port: number;
}

export interface RedisCluster {
  /** Every node the cluster was created with, primaries and replicas (a killed one stays listed). */
  nodes: RedisNode[];
  /** The temporary folder: configs, logs and state.json. */
  dir: string;
  /** The nodes that serve slots now (after a failover, the promoted replica instead of the killed primary). */
  primaries(): Promise<RedisNode[]>;
  /** SIGKILL of one node's server (no shutdown, no save): its replica takes over after the node timeout. */
  kill(port: number): Promise<void>;
  /** Kills every server and deletes the folder; safe to call twice. */
  close(): Promise<void>;
}

export interface RedisSentinel {
  /** The sentinels, to pass to a client's `sentinels` option. */
  sentinels: RedisNode[];
  /** The monitored primary's name (`sentinel monitor <name> …`). */
  name: string;
  /** The data servers: the first primary, then its replicas (roles change on failover). */
  nodes: RedisNode[];
  /** The temporary folder: configs, logs and state.json. */
  dir: string;
  /** The primary the sentinels announce now. */
  primary(): Promise<RedisNode>;
  /**
   * Moves the primary role to a replica and resolves with the new primary once every sentinel announces it:
   * `SENTINEL FAILOVER` (the old primary becomes a replica), or with `kill` a SIGKILL of the primary (it stays dead).
   */
  failover(options?: { kill?: boolean }): Promise<RedisNode>;
  kill(port: number): Promise<void>;
  close(): Promise<void>;
}

/** What scripts/redis-cluster.mjs needs to find and remove servers it left running. */
export interface RedisDeploymentState {
  dir: string;
  pids: number[];
}

const HOST = '127.0.0.1';
const STARTUP_TIMEOUT_MS = 60_000;
const run = promisify(execFile);

/** `redis-cli` against one server; the reply as text (errors of the command come back as text too). */
export async function redisCli(port: number, ...args: string[]): Promise<string> {
  const { stdout } = await run('redis-cli', ['-h', HOST, '-p', String(port), ...args], { timeout: 10_000 });
  return stdout.trim();
}

// Every port is held open until all are chosen, so one deployment never gets the same port twice.
async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<net.Server>((resolve, reject) => {
          const server = net.createServer();
          server.once('error', reject);
          server.listen(0, HOST, () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((server) => (server.address() as net.AddressInfo).port);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}

async function poll<T>(check: () => Promise<T | undefined>, what: string, timeoutMs = STARTUP_TIMEOUT_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      const reason = last instanceof Error ? `: ${last.message}` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${reason}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function killPid(pid: number): Promise<void> {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    return; // already gone
  }
  // A child of this process stays a zombie (still "alive" to kill 0) until Node reaps it, which it does promptly.
  await poll(async () => (alive(pid) ? undefined : true), `redis process ${pid} to exit`, 10_000);
}

/** Kills the servers of a deployment and deletes its folder (also for one a crashed start or another process left). */
export async function removeRedisDeployment(state: RedisDeploymentState): Promise<void> {
  try {
    await Promise.all(state.pids.map(killPid));
  } finally {
    rmSync(state.dir, { recursive: true, force: true });
  }
}

class Deployment {
  readonly dir: string;
  readonly pids = new Map<number, number>(); // port → pid
  private closed = false;

  constructor(kind: string) {
    this.dir = mkdtempSync(path.join(os.tmpdir(), `relay-redis-${kind}-`));
  }

  /** Starts `binary args…` detached (a manual `up` leaves it running) and waits until it answers PING. */
  async start(port: number, binary: string, args: string[]): Promise<void> {
    const child = spawn(binary, args, { cwd: this.dir, detached: true, stdio: 'ignore' });
    child.unref();
    const failed = new Promise<never>((_, reject) => {
      child.once('error', reject);
      child.once('exit', (code) => reject(new Error(`${binary} on port ${port} exited with ${code}, see ${this.dir}`)));
    });
    failed.catch(() => {}); // only awaited during startup
    this.pids.set(port, child.pid!);
    this.save();
    await Promise.race([
      failed,
      poll(async () => ((await redisCli(port, 'PING')) === 'PONG' ? true : undefined), `${port}`),
    ]);
  }

  async kill(port: number): Promise<void> {
    const pid = this.pids.get(port);
    if (pid === undefined) throw new Error(`no redis server of this deployment on port ${port}`);
    await killPid(pid);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await removeRedisDeployment(this.state());
  }

  state(): RedisDeploymentState {
    return { dir: this.dir, pids: [...this.pids.values()] };
  }

  private save() {
    writeFileSync(path.join(this.dir, 'state.json'), JSON.stringify(this.state()));
  }
}

/** The state a deployment keeps in its folder (scripts/redis-cluster.mjs `down`). */
export function readRedisDeploymentState(dir: string): RedisDeploymentState {
  return JSON.parse(readFileSync(path.join(dir, 'state.json'), 'utf8')) as RedisDeploymentState;
}

// Nothing on disk (no RDB, no AOF): a killed node comes back empty, as a lost machine would.
const serverArgs = (port: number, dir: string) => [
  '--port',
  String(port),
  '--bind',
  HOST,
  '--dir',
  dir,
  '--save',
  '',
  '--appendonly',
  'no',
  '--maxmemory-policy',
  'noeviction',
  '--logfile',
  path.join(dir, `redis-${port}.log`),
];

const field = (info: string, name: string) => new RegExp(`^${name}:(.*)$`, 'm').exec(info)?.[1]?.trim();

/**
 * A Redis Cluster of `primaries` primaries (at least 3, as `redis-cli --cluster create` requires) with
 * `replicasPerPrimary` replicas each, resolved once every node reports `cluster_state:ok` and knows every other.
 */
export async function startRedisCluster(options: { primaries?: number; replicasPerPrimary?: number } = {}) {
  const { primaries = 3, replicasPerPrimary = 1 } = options;
  const count = primaries * (1 + replicasPerPrimary);
  const deployment = new Deployment('cluster');
  try {
    // The cluster bus gets its own spare port: port + 10000 (the default) may be taken or past 65535.
    const ports = await freePorts(count * 2);
    const nodes = ports.slice(0, count).map((port) => ({ host: HOST, port }));
    await Promise.all(
      nodes.map(({ port }, i) => {
        const busPort = ports[count + i]!;
        return deployment.start(port, 'redis-server', [
          ...serverArgs(port, deployment.dir),
          '--cluster-enabled',
          'yes',
          '--cluster-port',
          String(busPort),
          '--cluster-config-file',
          path.join(deployment.dir, `nodes-${port}.conf`),
          '--cluster-node-timeout',
          '2000',
          '--cluster-announce-ip',
          HOST,
        ]);
      }),
    );
    await run(
      'redis-cli',
      [
        '--cluster',
        'create',
        ...nodes.map((node) => `${HOST}:${node.port}`),
        '--cluster-replicas',
        String(replicasPerPrimary),
        '--cluster-yes',
      ],
      { timeout: STARTUP_TIMEOUT_MS },
    );
    for (const node of nodes) {
      await poll(async () => {
        const info = await redisCli(node.port, 'CLUSTER', 'INFO');
        const ready = field(info, 'cluster_state') === 'ok' && Number(field(info, 'cluster_known_nodes')) === count;
        return ready ? true : undefined;
      }, `cluster_state:ok on ${node.port}`);
    }
    const cluster: RedisCluster = {
      nodes,
      dir: deployment.dir,
      async primaries() {
        for (const node of nodes) {
          try {
            return parsePrimaries(await redisCli(node.port, 'CLUSTER', 'NODES'));
          } catch {
            // this one is down (killed): ask the next
          }
        }
        throw new Error('no node of the cluster answers');
      },
      kill: (port) => deployment.kill(port),
      close: () => deployment.close(),
    };
    await waitForReplicas(cluster, nodes, primaries * replicasPerPrimary);
    return cluster;
  } catch (err) {
    await deployment.close();
    throw err;
  }
}

// `CLUSTER NODES` lines: id host:port@bus flags master-id ping pong epoch link-state slots…
function parsePrimaries(text: string): RedisNode[] {
  return text
    .split('\n')
    .map((line) => line.trim().split(' '))
    .filter(([, , flags, , , , , link, slots]) => {
      const roles = (flags ?? '').split(',');
      return roles.includes('master') && !roles.includes('fail') && link === 'connected' && slots !== undefined;
    })
    .map(([, address]) => {
      const [host, port] = address!.split('@')[0]!.split(':');
      return { host: host!, port: Number(port) };
    })
    .sort((a, b) => a.port - b.port);
}

// A failover needs each replica in sync with its primary, which `cluster_state:ok` alone does not promise.
async function waitForReplicas(cluster: RedisCluster, nodes: RedisNode[], replicas: number): Promise<void> {
  const primaryPorts = new Set((await cluster.primaries()).map((node) => node.port));
  const replicaNodes = nodes.filter((node) => !primaryPorts.has(node.port));
  if (replicaNodes.length !== replicas) throw new Error(`expected ${replicas} replicas, found ${replicaNodes.length}`);
  for (const node of replicaNodes) {
    await poll(async () => {
      const info = await redisCli(node.port, 'INFO', 'replication');
      return field(info, 'master_link_status') === 'up' ? true : undefined;
    }, `replica ${node.port} in sync`);
  }
}

const sentinelBinary = () =>
  new Promise<string[]>((resolve) => {
    // Debian's redis-sentinel is the redis-server binary under another name; `redis-server --sentinel` is the same.
    execFile('redis-sentinel', ['--version'], (err) => resolve(err ? ['redis-server'] : ['redis-sentinel']));
  });

/**
 * One primary, `replicas` replicas of it and `sentinels` sentinels (quorum: a majority) monitoring it as `relay`;
 * resolved once every sentinel knows every replica and every other sentinel, so a failover can start at once.
 */
export async function startRedisSentinel(options: { replicas?: number; sentinels?: number } = {}) {
  const { replicas = 1, sentinels: sentinelCount = 3 } = options;
  const name = 'relay';
  const deployment = new Deployment('sentinel');
  try {
    const ports = await freePorts(1 + replicas + sentinelCount);
    const nodes = ports.slice(0, 1 + replicas).map((port) => ({ host: HOST, port }));
    const sentinels = ports.slice(1 + replicas).map((port) => ({ host: HOST, port }));
    const [primaryPort] = ports as [number];
    await deployment.start(primaryPort, 'redis-server', serverArgs(primaryPort, deployment.dir));
    await Promise.all(
      nodes
        .slice(1)
        .map(({ port }) =>
          deployment.start(port, 'redis-server', [
            ...serverArgs(port, deployment.dir),
            '--replicaof',
            HOST,
            String(primaryPort),
          ]),
        ),
    );
    for (const { port } of nodes.slice(1)) {
      await poll(async () => {
        const info = await redisCli(port, 'INFO', 'replication');
        return field(info, 'master_link_status') === 'up' ? true : undefined;
      }, `replica ${port} in sync`);
    }
    const [binary] = await sentinelBinary();
    const quorum = Math.floor(sentinelCount / 2) + 1;
    await Promise.all(
      sentinels.map(({ port }) => {
        // The sentinel rewrites its config file (known replicas, sentinels, epochs): one writable file each.
        const config = path.join(deployment.dir, `sentinel-${port}.conf`);
        writeFileSync(
          config,
          [
            `port ${port}`,
            `bind ${HOST}`,
            `dir ${deployment.dir}`,
            `logfile ${path.join(deployment.dir, `sentinel-${port}.log`)}`,
            `sentinel monitor ${name} ${HOST} ${primaryPort} ${quorum}`,
            `sentinel down-after-milliseconds ${name} 1000`,
            // Also the pause before the same primary may be failed over again: short, for tests failing over twice.
            `sentinel failover-timeout ${name} 5000`,
            `sentinel parallel-syncs ${name} 1`,
            '',
          ].join('\n'),
        );
        return deployment.start(port, binary!, binary === 'redis-server' ? [config, '--sentinel'] : [config]);
      }),
    );
    for (const { port } of sentinels) {
      await poll(async () => {
        const master = await redisCli(port, 'SENTINEL', 'MASTER', name);
        const known = (key: string) => Number(new RegExp(`^${key}\\n(\\d+)$`, 'm').exec(master)?.[1]);
        const ready = known('num-slaves') === replicas && known('num-other-sentinels') === sentinelCount - 1;
        return ready ? true : undefined;
      }, `sentinel ${port} to know every replica and sentinel`);
    }
    const primary = async (port = sentinels[0]!.port): Promise<RedisNode> => {
      const [host, primaryPortText] = (await redisCli(port, 'SENTINEL', 'GET-MASTER-ADDR-BY-NAME', name)).split('\n');
      return { host: host!, port: Number(primaryPortText) };
    };
    const result: RedisSentinel = {
      sentinels,
      name,
      nodes,
      dir: deployment.dir,
      primary: () => primary(),
      async failover({ kill = false } = {}) {
        const before = await primary();
        if (kill) await deployment.kill(before.port);
        else {
          const reply = await redisCli(sentinels[0]!.port, 'SENTINEL', 'FAILOVER', name);
          if (reply !== 'OK') throw new Error(`SENTINEL FAILOVER: ${reply}`);
        }
        let after: RedisNode | undefined;
        for (const { port } of sentinels) {
          after = await poll(async () => {
            const now = await primary(port);
            if (now.port === before.port) return undefined;
            const role = field(await redisCli(now.port, 'INFO', 'replication'), 'role');
            return role === 'master' ? now : undefined;
          }, `sentinel ${port} to announce a new primary`);
        }
        // Settled only when every other live server replicates the new primary: until the sentinels demote it, the
        // old primary still takes writes that its demotion then throws away.
        for (const node of nodes) {
          if (node.port === after!.port || (kill && node.port === before.port)) continue;
          await poll(async () => {
            const info = await redisCli(node.port, 'INFO', 'replication');
            const following = field(info, 'master_port') === String(after!.port);
            return following && field(info, 'master_link_status') === 'up' ? true : undefined;
          }, `${node.port} to replicate the new primary`);
        }
        return after!;
      },
      kill: (port) => deployment.kill(port),
      close: () => deployment.close(),
    };
    return result;
  } catch (err) {
    await deployment.close();
    throw err;
  }
}
