// Samples pg_stat_activity of one database every `everyMs` on a connection of its own, for a timeline of what the
// other backends were doing: each sample lists the active backends' wait events and the start of their statements.
// Used by retention-drop.mjs to tell a drop's effect on ingest apart: waiting on a lock, on the disk (WAL, IO) or on
// no event at all (on a core, or waiting for one).
import pg from 'pg';

const clock = () => performance.timeOrigin + performance.now();

const ACTIVE = `SELECT pid, wait_event_type AS type, wait_event AS event, left(query, 40) AS query
  FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND state = 'active'`;

/** Starts sampling; `stop()` resolves with the samples ({ at, active: [{ pid, type, event, query }] }). */
export async function sampleActivity(url, everyMs = 20) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const samples = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const at = clock();
      const { rows } = await client.query(ACTIVE);
      samples.push({ at, active: rows });
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      await client.end();
      return samples;
    },
  };
}

/**
 * Counts, over the samples within [from, to], the active backends whose statement starts with one of `kinds`'
 * prefixes, by what they waited on (`cpu`: no wait event).
 */
export function waitsBetween(samples, from, to, kinds) {
  const counts = {};
  for (const s of samples) {
    if (s.at < from || s.at > to) continue;
    for (const a of s.active) {
      const kind = Object.entries(kinds).find(([, prefix]) => a.query.startsWith(prefix))?.[0] ?? 'other';
      const wait = a.type === null ? 'cpu' : `${a.type}:${a.event}`;
      counts[kind] ??= {};
      counts[kind][wait] = (counts[kind][wait] ?? 0) + 1;
    }
  }
  return counts;
}
