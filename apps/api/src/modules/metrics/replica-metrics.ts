import type { ReplicaState, ReplicaStatus } from '@relay/db';
import { Gauge, type Registry } from 'prom-client';

const STATUSES: ReplicaStatus[] = ['ok', 'behind', 'unavailable'];

// The read replica's lag and state, read from its route when scraped (only with DATABASE_READ_URL). The lag is NaN
// while it is not known (the replica unreachable): an alert on `> bound` then stays quiet and one on the status fires.
export function registerReplicaMetrics(registry: Registry, replica: () => ReplicaState): void {
  const registers = [registry];
  new Gauge({
    name: 'relay_db_replica_lag_seconds',
    help:
      'How long the primary has had WAL the read replica (DATABASE_READ_URL) has not replayed; 0 when it has ' +
      'everything, NaN while it cannot be reached.',
    registers,
    collect() {
      this.set(replica().lagSeconds ?? Number.NaN);
    },
  });
  new Gauge({
    name: 'relay_db_replica_lag_bytes',
    help: "WAL bytes between the primary's current position and the read replica's replay position.",
    registers,
    collect() {
      this.set(replica().lagBytes ?? Number.NaN);
    },
  });
  new Gauge({
    name: 'relay_db_replica_status',
    help:
      'The read replica as this api process sees it (1 for its status): ok (history reads go to it), behind ' +
      '(past DATABASE_READ_MAX_LAG_SECONDS) or unavailable; in both of these reads go to the primary.',
    labelNames: ['status'],
    registers,
    collect() {
      const { status } = replica();
      for (const s of STATUSES) this.set({ status: s }, s === status ? 1 : 0);
    },
  });
}
