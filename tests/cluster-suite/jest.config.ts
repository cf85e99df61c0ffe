/** @jest-config-loader esbuild-register */
import type { Config } from 'jest';
import base from '../../jest.config';

// Issue 33 item 5: the pipeline end-to-end suite again, on a real Redis Cluster (3 primaries, 3 replicas, 3 queue
// shards) instead of the single Redis. Its global setup starts the cluster and hands its nodes to the harness
// (tests/e2e/harness.ts reads TEST_REDIS_CLUSTER_NODES), whose single-Redis URL then points nowhere: a use of Redis
// that does not go through the cluster settings fails here. `pnpm test` runs it after the main jest run and counts
// it in its totals line; alone: `pnpm test:cluster`. The files are the suite's tests that reach Redis only through
// the relay itself (the others open connections of their own to the single Redis to look at or break the queue).
const CLUSTER_SUITE = [
  'delivery',
  'delivery-actions',
  'delivery-policy',
  'delivery-stream',
  'dedup',
  'destination-ordering',
  'event-actions',
  'fair-delivery',
  'hooks',
  'ingest',
  'pacing',
  'rule-filter',
  'send',
  'transform-delivery',
  'worker-scaling',
];

const config: Config = {
  ...base,
  rootDir: '../..',
  roots: ['<rootDir>/tests/e2e'],
  testMatch: CLUSTER_SUITE.map((name) => `**/tests/e2e/${name}.test.ts`),
  testPathIgnorePatterns: ['/node_modules/'],
  globalSetup: '<rootDir>/tests/cluster-suite/global-setup.ts',
  globalTeardown: '<rootDir>/tests/cluster-suite/global-teardown.ts',
  // One cluster serves both jest workers; a failover is not part of this suite (redis-cluster-failover.test.ts).
};

export default config;
