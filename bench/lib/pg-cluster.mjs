// The bench's throw-away PostgreSQL cluster for `pnpm bench --profile`: pg_stat_statements needs
// shared_preload_libraries, which the machine's own server does not load (and must not be changed for a
// benchmark). The cluster helper itself lives in test-support (the read-replica tests start one too).
import { startPgCluster } from '../../packages/test-support/src/pg-cluster.ts';

export async function startProfileCluster() {
  const cluster = await startPgCluster({
    settings: [
      '-c shared_preload_libraries=pg_stat_statements',
      '-c pg_stat_statements.track=all',
      '-c track_io_timing=on',
    ],
  });
  return { url: cluster.url, stop: () => cluster.remove() };
}
