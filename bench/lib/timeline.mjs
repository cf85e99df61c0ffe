// Where an event's end-to-end time goes, from clocks that already exist: the load generator's send
// and answer times, the insert's transaction time (events.created_at), the worker's attempt start and
// the target's receipt. All on one machine, so one clock. Used to attribute latency tails.
import { percentile, round } from './stats.mjs';

const SEGMENTS = {
  // request sent -> insert transaction began: HTTP parsing, validation and waiting for a batch slot
  beforeInsert: (e) => e.created - e.t0,
  // insert began -> answer received: the insert, the enqueue and the answer's way back
  insertToAnswer: (e) => e.t1 - e.created,
  // insert began -> the worker starts the attempt: enqueue, waiting in the queue, the load
  queued: (e) => e.started - e.created,
  // attempt started -> the target has the request: signing, the lookup and the HTTP exchange
  sending: (e) => e.received - e.started,
};

/** Per segment p50/p99, and the mean share of each segment among the slowest 1 % of events. */
export async function eventTimeline(query, url, samples, receipts) {
  if (samples.length === 0) return null;
  const ids = samples.map((s) => s.id);
  const rows = await query(
    url,
    `SELECT e.id, extract(epoch FROM e.created_at) * 1000 AS created,
            (SELECT extract(epoch FROM min(a.started_at)) * 1000 FROM delivery_attempts a WHERE a.event_id = e.id)
              AS started
     FROM events e WHERE e.id = ANY($1::uuid[])`,
    [ids],
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  const events = samples
    .map((s) => {
      const row = byId.get(s.id);
      const received = receipts.get(s.id)?.t;
      if (!row || row.started === null || received === undefined) return null;
      return { ...s, created: Number(row.created), started: Number(row.started), received };
    })
    .filter(Boolean);
  const result = {};
  for (const [name, of] of Object.entries(SEGMENTS)) {
    const values = events.map(of);
    result[name] = { p50: round(percentile(values, 50)), p99: round(percentile(values, 99)) };
  }
  const slowest = [...events].sort((a, b) => b.received - b.t0 - (a.received - a.t0));
  const tail = slowest.slice(0, Math.max(1, Math.ceil(events.length / 100)));
  result.slowestOnePercentMeanMs = Object.fromEntries(
    Object.entries(SEGMENTS).map(([name, of]) => [name, round(tail.reduce((sum, e) => sum + of(e), 0) / tail.length)]),
  );
  return result;
}
