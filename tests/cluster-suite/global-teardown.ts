import type { RedisCluster } from '../../packages/test-support/src/redis-cluster';
import baseTeardown from '../../packages/test-support/src/global-teardown';

export default async function globalTeardown(): Promise<void> {
  await (globalThis as { relayCluster?: RedisCluster }).relayCluster?.close();
  await baseTeardown();
}
