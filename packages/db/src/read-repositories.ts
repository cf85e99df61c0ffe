import type pg from 'pg';
import { routedReads, type ReplicaRoute } from './replica-route';
import { createDeliveryRepository } from './repositories/delivery.repository';
import { createEventQueryRepository } from './repositories/event-query.repository';
import { createOffboardingRepository } from './repositories/offboarding.repository';
import { createStatsRepository } from './repositories/stats.repository';
import { createTransformedBodyRepository } from './repositories/transformed-body.repository';

function pick<T extends object, K extends keyof T>(from: T, keys: readonly K[]): Pick<T, K> {
  return Object.fromEntries(keys.map((key) => [key, from[key]])) as Pick<T, K>;
}

// Every read a replica may answer, by repository: history that may trail the primary by the replica's lag (lists,
// search, details, stats, exports). Nothing here is read back after the caller's own write: those reads (the answer
// to an acknowledge, a just-created rule, anything inside a write's transaction) use the primary's repositories.
function readSide(pool: pg.Pool, sensitiveHeaders: readonly string[] | undefined) {
  return {
    eventQueries: pick(createEventQueryRepository(pool, sensitiveHeaders), [
      'page',
      'deliveryCounts',
      'findById',
      'attempts',
      'sources',
    ]),
    deliveries: pick(createDeliveryRepository(pool), ['forEvent']),
    transformedBodies: createTransformedBodyRepository(pool),
    stats: createStatsRepository(pool),
    exports: pick(createOffboardingRepository(pool), ['exportPage']),
  };
}

export type ReadRepositories = ReturnType<typeof readSide>;

/** The read replica's connections and the route that decides, read by read, whether they are used. */
export interface ReadReplica {
  pool: pg.Pool;
  route: ReplicaRoute;
}

/**
 * The repositories of the reads a replica may answer: on the primary's pool when there is no replica
 * (DATABASE_READ_URL unset), else on the replica's while its route allows, falling back to the primary's.
 */
export function createReadRepositories(
  primary: pg.Pool,
  replica: ReadReplica | undefined,
  options: { sensitiveHeaders?: readonly string[] } = {},
): ReadRepositories {
  const onPrimary = readSide(primary, options.sensitiveHeaders);
  if (!replica) return onPrimary;
  const onReplica = readSide(replica.pool, options.sensitiveHeaders);
  const routed = {} as Record<keyof ReadRepositories, object>;
  for (const name of Object.keys(onPrimary) as (keyof ReadRepositories)[])
    routed[name] = routedReads<object>(onPrimary[name], onReplica[name], replica.route);
  return routed as ReadRepositories;
}
