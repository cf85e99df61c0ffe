// A throw-away Redis Cluster on spare ports, in a temporary folder removed afterwards: the cluster suites (issue 33)
// run the relay on the real engine, never on the machine's own Redis. Sentinel: redis-sentinel.ts.
import path from 'node:path';
import {
  Deployment,
  field,
  HOST,
  poll,
  redisCli,
  retryPortClash,
  run,
  serverArgs,
  STARTUP_TIMEOUT_MS,
  type RedisNode,
  type StartOptions,
} from './redis-deployment';
import { freePorts } from './spare-port';

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

/**
 * A Redis Cluster of `primaries` primaries (at least 3, as `redis-cli --cluster create` requires) with
 * `replicasPerPrimary` replicas each, resolved once every node reports `cluster_state:ok` and knows every other.
 */
export function startRedisCluster(
  options: { primaries?: number; replicasPerPrimary?: number } & StartOptions = {},
): Promise<RedisCluster> {
  return retryPortClash(() => startClusterOnce(options));
}

async function startClusterOnce(options: { primaries?: number; replicasPerPrimary?: number } & StartOptions) {
  const { primaries = 3, replicasPerPrimary = 1 } = options;
  const count = primaries * (1 + replicasPerPrimary);
  const deployment = new Deployment('cluster', options.keepAfterExit ?? false);
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
