import { startRedisCluster, type RedisCluster } from '../../packages/test-support/src/redis-cluster';
import baseSetup from '../../packages/test-support/src/global-setup';

// The template database as in the main run, then one Redis Cluster for the whole run. Its nodes reach the test
// files through the environment, which jest's workers inherit (they start after this).
export default async function globalSetup(): Promise<void> {
  await baseSetup();
  const cluster = await startRedisCluster();
  (globalThis as { relayCluster?: RedisCluster }).relayCluster = cluster;
  process.env.TEST_REDIS_CLUSTER_NODES = cluster.nodes.map(({ host, port }) => `${host}:${port}`).join(',');
}
