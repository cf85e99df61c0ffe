// An experiment for `pnpm bench --retention --variant concurrent` (issue 32, item 6): the retention drop with
// `DETACH PARTITION ... CONCURRENTLY` instead of one transaction holding the family's tables. Measured only: it does
// not keep the guarantees the product's drop keeps (a row made kept between the count and the detach is not caught
// under a lock, only counted again afterwards), so it is not the product's code.
import type pg from 'pg';
import {
  childrenOf,
  deleteRange,
  idRange,
  REFERENCING,
  removeDetached,
} from '../../packages/db/src/repositories/partition-retention.repository.ts';
import { dropOwnForeignKeys } from '../../packages/db/src/repositories/detached-tables.ts';
import type { AttachedPartition } from '../../packages/db/src/repositories/partition.repository.ts';

export function createConcurrentDrop(pool: pg.Pool, recount: (partition: AttachedPartition) => Promise<number>) {
  return async (partition: AttachedPartition, family: readonly AttachedPartition[]) => {
    const range = idRange(partition);
    const client = await pool.connect();
    const steps: Record<string, number> = {};
    let at = performance.now();
    const step = (name: string) => {
      const now = performance.now();
      steps[name] = Math.round((now - at) * 10) / 10;
      at = now;
    };
    try {
      await client.query("SET lock_timeout = '2s'");
      const { detached, trimmed } = childrenOf(partition, family);
      await client.query('BEGIN');
      for (const [table, column] of REFERENCING) await client.query(deleteRange(table, column), range);
      for (const table of trimmed) await client.query(deleteRange(table), range);
      await client.query('COMMIT');
      step('deletes');
      for (const p of detached.filter((d) => d.table !== 'events')) {
        await client.query(`ALTER TABLE "${p.table}" DETACH PARTITION "${p.name}" CONCURRENTLY`);
        step(`detach ${p.table}`);
        await dropOwnForeignKeys(client, p.name);
        step(`fks ${p.table}`);
      }
      await client.query('SET enable_hashjoin = off; SET enable_mergejoin = off');
      await client.query(`ALTER TABLE events DETACH PARTITION "${partition.name}" CONCURRENTLY`);
      await client.query('RESET enable_hashjoin; RESET enable_mergejoin');
      step('detach events');
      const kept = await recount(partition);
      step('recount');
      if (kept > 0) throw new Error(`concurrent drop: ${kept} kept after the detach`);
      const names = detached.map((p) => p.name);
      const events = await removeDetached(pool, partition.name, names, range);
      step('drop');
      return { outcome: 'dropped' as const, events, steps };
    } finally {
      client.release();
    }
  };
}
