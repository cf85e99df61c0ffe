// A Redis Cluster (3 primaries + 3 replicas) and a Sentinel set (a primary, a replica, 3 sentinels) on spare ports,
// for running the relay on the real engines by hand; the tests start their own through the same helper
// (packages/test-support/src/redis-cluster.ts, redis-sentinel.ts).
//
//   node scripts/redis-cluster.mjs up [cluster] [sentinel]   start them (both when none is named), print the settings
//   node scripts/redis-cluster.mjs down                      remove every deployment `up` left running
//
// The servers outlive this script: `up` marks each deployment's temporary folder, `down` finds the marked ones there.
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { tsImport } from 'tsx/esm/api';

const support = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../packages/test-support/src');
const load = (file) => tsImport(path.join(support, file), import.meta.url);
const { startRedisCluster } = await load('redis-cluster.ts');
const { startRedisSentinel } = await load('redis-sentinel.ts');
const { removeRedisDeployment } = await load('redis-deployment.ts');
const MARK = 'started-by-redis-cluster-script';
const address = (nodes) => nodes.map((node) => `${node.host}:${node.port}`).join(',');

async function up(kinds) {
  const chosen = kinds.length > 0 ? kinds : ['cluster', 'sentinel'];
  for (const kind of chosen) {
    if (kind === 'cluster') {
      const cluster = await startRedisCluster({ keepAfterExit: true });
      writeFileSync(path.join(cluster.dir, MARK), '');
      console.log(`REDIS_CLUSTER_NODES=${address(cluster.nodes)}`);
    } else if (kind === 'sentinel') {
      const sentinel = await startRedisSentinel({ keepAfterExit: true });
      writeFileSync(path.join(sentinel.dir, MARK), '');
      console.log(`REDIS_SENTINELS=${address(sentinel.sentinels)}`);
      console.log(`REDIS_SENTINEL_NAME=${sentinel.name}`);
    } else {
      throw new Error(`unknown deployment "${kind}": cluster or sentinel`);
    }
  }
  console.log('remove them with: node scripts/redis-cluster.mjs down');
}

async function down() {
  // Only what `up` started: a test's deployment in the same folder belongs to a run that is still going.
  const marked = readdirSync(os.tmpdir())
    .filter((name) => name.startsWith('relay-redis-'))
    .map((name) => path.join(os.tmpdir(), name))
    .filter((dir) => existsSync(path.join(dir, MARK)));
  for (const dir of marked) await removeRedisDeployment(dir);
  console.log(`removed ${marked.length} deployment(s)`);
}

const [command, ...rest] = process.argv.slice(2);
if (command === 'up') await up(rest);
else if (command === 'down') await down();
else {
  console.error('usage: node scripts/redis-cluster.mjs up [cluster] [sentinel] | down');
  process.exit(2);
}
