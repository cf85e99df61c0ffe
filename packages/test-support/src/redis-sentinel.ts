// A throw-away Sentinel deployment (a primary, its replicas, sentinels) on spare ports, in a temporary folder removed
// afterwards: the sentinel suites (issue 33) fail the relay's Redis over for real. Cluster: redis-cluster.ts.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  Deployment,
  field,
  HOST,
  poll,
  redisCli,
  retryPortClash,
  serverArgs,
  type RedisNode,
  type StartOptions,
} from './redis-deployment';
import { freePorts } from './spare-port';

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

const sentinelBinary = () =>
  new Promise<string[]>((resolve) => {
    // Debian's redis-sentinel is the redis-server binary under another name; `redis-server --sentinel` is the same.
    execFile('redis-sentinel', ['--version'], (err) => resolve(err ? ['redis-server'] : ['redis-sentinel']));
  });

/**
 * One primary, `replicas` replicas of it and `sentinels` sentinels (quorum: a majority) monitoring it as `relay`;
 * resolved once every sentinel knows every replica and every other sentinel, so a failover can start at once.
 */
export function startRedisSentinel(
  options: { replicas?: number; sentinels?: number } & StartOptions = {},
): Promise<RedisSentinel> {
  return retryPortClash(() => startSentinelOnce(options));
}

async function startSentinelOnce(options: { replicas?: number; sentinels?: number } & StartOptions) {
  const { replicas = 1, sentinels: sentinelCount = 3 } = options;
  const name = 'relay';
  const deployment = new Deployment('sentinel', options.keepAfterExit ?? false);
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
