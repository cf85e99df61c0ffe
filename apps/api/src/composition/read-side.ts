import {
  createPool,
  createReadRepositories,
  createReplicaRoute,
  type Database,
  type ReadRepositories,
  type ReplicaState,
} from '@relay/db';
import type { Logger } from 'pino';
import type { ApiConfig } from '../config';

export interface ReadSide {
  /** The reads a replica may answer (services get these; everything else uses the primary's repositories). */
  reads: ReadRepositories;
  /** The replica's state (lag, where reads go); undefined without DATABASE_READ_URL. */
  replica: (() => ReplicaState) | undefined;
  close(): Promise<void>;
}

const describe = (state: ReplicaState) => ({
  status: state.status,
  lagSeconds: state.lagSeconds,
  lagBytes: state.lagBytes,
  error: state.error,
});

/**
 * The one place that decides which database a read goes to: with DATABASE_READ_URL, history reads go to the replica
 * while it is reachable and within DATABASE_READ_MAX_LAG_SECONDS, else to the primary. Each switch is logged once.
 */
export function createReadSide(
  config: Pick<ApiConfig, 'DATABASE_READ_URL' | 'DATABASE_READ_MAX_LAG_SECONDS' | 'DATABASE_POOL_SIZE'>,
  primary: Database,
  logger: Logger,
  options: { sensitiveHeaders: readonly string[] },
): ReadSide {
  if (!config.DATABASE_READ_URL)
    return {
      reads: createReadRepositories(primary.pool, undefined, options),
      replica: undefined,
      close: async () => {},
    };
  const replicaPool = createPool({
    url: config.DATABASE_READ_URL,
    poolSize: config.DATABASE_POOL_SIZE,
    // A replica that does not answer must not hold a request long: its reads go to the primary instead.
    connectionTimeoutMs: 2_000,
    applicationName: 'relay-api-read',
    onPoolError: (err) => logger.debug({ err }, 'read replica pool error'),
  });
  // The lag checks have a connection of their own: reads filling the pool must not make the replica look away.
  const checkPool = createPool({
    url: config.DATABASE_READ_URL,
    poolSize: 1,
    connectionTimeoutMs: 2_000,
    applicationName: 'relay-api-read-check',
    onPoolError: (err) => logger.debug({ err }, 'read replica check connection error'),
  });
  const route = createReplicaRoute({
    primary: primary.pool,
    replica: checkPool,
    maxLagSeconds: config.DATABASE_READ_MAX_LAG_SECONDS,
    onSwitch(state) {
      if (state.reads === 'replica') {
        logger.info({ replica: describe(state) }, 'read replica in use: history reads go to DATABASE_READ_URL');
      } else if (state.status === 'behind') {
        logger.warn(
          { replica: describe(state), maxLagSeconds: config.DATABASE_READ_MAX_LAG_SECONDS },
          'read replica is behind: reads go to the primary until it catches up',
        );
      } else {
        logger.warn({ replica: describe(state) }, 'read replica unavailable: reads go to the primary until it is back');
      }
    },
  });
  // Until the first check answers, reads use the primary; a replica unreachable from the start is said once here.
  void route.check().then((state) => {
    if (state.status === 'unavailable')
      logger.warn({ replica: describe(state) }, 'read replica unavailable: reads go to the primary until it is back');
  });
  return {
    reads: createReadRepositories(primary.pool, { pool: replicaPool, route }, options),
    replica: () => route.state(),
    async close() {
      route.close();
      await Promise.all([replicaPool.end(), checkPool.end()]);
    },
  };
}
